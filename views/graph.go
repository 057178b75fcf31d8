package views

import (
	"sort"

	"greatbook/internal/intake"
	"greatbook/internal/review"
)

// graphNode is a member of a group drawn in the graph.
type graphNode struct {
	ID       int64
	X, Y     float64
	Status   string
	Accepted bool
	Current  bool
}

// graphEdge is a duplicate_of edge, from the duplicate to what it duplicates.
type graphEdge struct {
	X1, Y1, X2, Y2 float64
	LX, LY         float64
	Label          string
}

type groupGraph struct {
	Nodes         []graphNode
	Edges         []graphEdge
	Width, Height float64
}

const (
	nodeW, nodeH = 132.0, 46.0
	gapX, gapY   = 28.0, 74.0
	pad          = 14.0
)

var reasonLabels = map[string]string{
	intake.SameReference: "same reference",
	intake.SameContent:   "same content",
	intake.NewerVersion:  "newer version",
	intake.Manual:        "typed by hand",
}

// layoutGroup lays a group out in layers: a member sits one layer below the
// member it duplicates. A cycle is cut where the walk meets a member it has
// already passed, so its members fall in successive layers and one edge of
// the cycle points upwards; every member and edge is still drawn.
func layoutGroup(members []review.Member, current int64) groupGraph {
	byID := map[int64]review.Member{}
	for _, m := range members {
		byID[m.ID] = m
	}
	depth := map[int64]int{}
	var depthOf func(id int64, seen map[int64]bool) int
	depthOf = func(id int64, seen map[int64]bool) int {
		if d, ok := depth[id]; ok {
			return d
		}
		m := byID[id]
		if m.DuplicateOf == 0 || seen[id] {
			return 0
		}
		if _, ok := byID[m.DuplicateOf]; !ok {
			return 0
		}
		seen[id] = true
		d := depthOf(m.DuplicateOf, seen) + 1
		return d
	}
	layers := map[int][]int64{}
	maxDepth := 0
	for _, m := range members {
		d := depthOf(m.ID, map[int64]bool{})
		depth[m.ID] = d
		layers[d] = append(layers[d], m.ID)
		maxDepth = max(maxDepth, d)
	}
	g := groupGraph{}
	pos := map[int64][2]float64{}
	widest := 0
	for d := 0; d <= maxDepth; d++ {
		ids := layers[d]
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		widest = max(widest, len(ids))
		for i, id := range ids {
			x, y := pad+float64(i)*(nodeW+gapX), pad+float64(d)*(nodeH+gapY)
			pos[id] = [2]float64{x, y}
			m := byID[id]
			g.Nodes = append(g.Nodes, graphNode{ID: id, X: x, Y: y, Status: string(m.Status), Accepted: m.Accepted(), Current: id == current})
		}
	}
	for _, m := range members {
		p, ok := pos[m.DuplicateOf]
		if m.DuplicateOf == 0 || !ok {
			continue
		}
		c := pos[m.ID]
		x1, y1 := c[0]+nodeW/2, c[1]
		x2, y2 := p[0]+nodeW/2, p[1]+nodeH
		if c[1] == p[1] { // same layer (a cycle): side to side
			y1, y2 = c[1]+nodeH/2, p[1]+nodeH/2
			if c[0] < p[0] {
				x1, x2 = c[0]+nodeW, p[0]
			} else {
				x1, x2 = c[0], p[0]+nodeW
			}
		}
		label := reasonLabels[m.DuplicateReason]
		if label == "" {
			label = m.DuplicateReason
		}
		g.Edges = append(g.Edges, graphEdge{X1: x1, Y1: y1, X2: x2, Y2: y2, LX: (x1+x2)/2 + 4, LY: (y1 + y2) / 2, Label: label})
	}
	g.Width = pad*2 + float64(max(widest, 1))*(nodeW+gapX) - gapX
	g.Height = pad*2 + float64(maxDepth+1)*(nodeH+gapY) - gapY
	for _, e := range g.Edges {
		g.Width = max(g.Width, e.LX+float64(len(e.Label))*6.5+pad) // room for the label
	}
	return g
}

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/embeddedpg"
	"greatbook/internal/testkit"
)

// clusterDB opens a pool on the greatbook database of the embedded cluster
// in dir (running, and owned by a serve), for setting up and checking.
func clusterDB(t *testing.T, dir string) *testkit.DB {
	t.Helper()
	url := fmt.Sprintf("host=%s port=%d user=postgres dbname=greatbook sslmode=disable", filepath.Join(dir, "run"), embeddedpg.Port)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &testkit.DB{Pool: pool, URL: url}
}

// killPostmaster SIGKILLs the cluster's postmaster, as the OOM killer or an
// operator's kill -9 would, and waits until its owner has reaped it.
func killPostmaster(t *testing.T, dir string) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(postmasterPID(t, dir)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed postmaster to be reaped", 30*time.Second, func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(stat), ") Z ")
	})
}

// freeAddr returns a loopback address nothing listens on, so that a serve
// restarted after a SIGKILL answers where its clients look for it.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestServeRestartsItsKilledDatabaseAndAnswers503Meanwhile(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	// The owner waits this long before it restarts the postmaster, so that
	// the outage lasts long enough to be seen by the requests below.
	s := startServeWith(t, binary, []string{"GREATBOOK_TEST_RESTART_DELAY=3s"}, "--data-dir", dir)
	token := books(t, clusterDB(t, dir), true)
	c := client{t: t, url: s.url, token: token}
	id := c.upload(invoiceNumbered(t, "OUTAGE-1"))
	doc := "/api/v1/intake/" + strconv.FormatInt(id, 10)
	before := postmasterPID(t, dir)

	killPostmaster(t, dir)
	unavailable, healthChecked := 0, false
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the database never came back (%d answers 503)", unavailable)
		}
		status, header, body, err := c.send("GET", doc, nil)
		if err != nil {
			t.Fatalf("serve stopped answering during the outage: %v", err)
		}
		if status == 200 && unavailable > 0 {
			break // back
		}
		if status == 200 {
			continue // a backend that has not yet noticed its postmaster died
		}
		e, _ := body["error"].(map[string]any)
		if status != 503 || e["code"] != "unavailable" || header.Get("Retry-After") == "" {
			t.Fatalf("during the outage: %d %v (Retry-After %q), want 503 unavailable with Retry-After", status, body, header.Get("Retry-After"))
		}
		unavailable++
		if !healthChecked {
			status, header, _, err := c.send("GET", "/healthz", nil)
			if err != nil || status != 503 || header.Get("Retry-After") == "" {
				t.Fatalf("healthz during the outage: %d %v", status, err)
			}
			healthChecked = true
		}
	}
	select {
	case err := <-s.done:
		t.Fatalf("serve exited: %v", err)
	default:
	}
	if postmasterPID(t, dir) == before {
		t.Fatal("the postmaster was not restarted")
	}
	if !strings.Contains(s.log.String(), "database cluster restarted") {
		t.Fatal("the restart was not logged")
	}
	// The same serve writes again: the approval posts, once.
	if status, body, err := c.call("POST", doc+"/approve", nil); err != nil || status != 200 {
		t.Fatalf("approve after the restart: %d %v %v", status, body, err)
	}
	c.waitStatus(id, "posted")
	if n := entries(t, clusterDB(t, dir)); n != 1 {
		t.Fatalf("%d journal entries", n)
	}
}

package webhooks

import "greatbook/internal/queue"

// The statements of the webhooks, by what they do. Each runs through a
// database.Executor, or in the transaction database.WithTx opened.

// deliveries is the deliveries' table as the queue serves it. The
// endpoints are its lanes: one delivery at a time per endpoint, across
// processes, so that an endpoint that hangs holds one worker and never the
// others; endpoints take turns; and an endpoint that failed transiently
// rests for the delivery's backoff before any of its deliveries is tried
// again (its other events would meet the same outage, and an endpoint that
// hangs would otherwise take a worker for a whole timeout per event of its
// backlog, starving the other endpoints once a few such hang at once).
var deliveries = queue.New(queue.Table{
	Name: "webhook_deliveries", Alias: "d", Key: "id", Org: "org_id", Status: "status",
	Ready: []string{"pending"}, Done: "delivered", Dead: "dead",
	Attempts: "attempts", DueAt: "next_attempt_at", UpdatedAt: "updated_at", LastError: "last_error",
	DoneAt: "delivered_at", Revivals: "revivals",
	Payload: []string{"org_id", "event_id", "event_type", "body"}, Outcome: []string{"last_status"},
	Item: "webhook delivery", DeadLetters: "dead deliveries",
	Lane: &queue.Lane{Table: "webhook_endpoints", Key: "id", Ref: "endpoint_id", Open: "enabled",
		Holder: "in_flight_claim", Until: "in_flight_until", Turn: "last_claimed_at", Payload: []string{"url", "secret"}},
})

// Endpoints: registering one (the org's row lock first, so that the cap of
// enabled endpoints holds), listing an org's, disabling one.
const (
	countEnabledEndpointsSQL = `SELECT count(*) FROM webhook_endpoints e, (SELECT id FROM orgs WHERE id = $1 FOR UPDATE) o
			WHERE e.org_id = o.id AND e.enabled`
	insertEndpointSQL = `INSERT INTO webhook_endpoints (org_id, url, event_types, secret, feed_cursor, created_by)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, created_at`
	// endpointsSQL lists an org's endpoints, newest first, with how many of
	// their deliveries wait and how many are dead letters.
	endpointsSQL = `SELECT e.id, e.org_id, e.url, e.event_types, e.enabled, e.created_by, e.created_at, e.disabled_at,
		(SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending'),
		(SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'dead')
		FROM webhook_endpoints e WHERE e.org_id = $1 ORDER BY e.id DESC`
	disableEndpointSQL = `UPDATE webhook_endpoints SET enabled = false, disabled_by = $3, disabled_at = now()
			WHERE org_id = $1 AND id = $2 AND enabled`
	endpointExistsSQL = `SELECT true FROM webhook_endpoints WHERE org_id = $1 AND id = $2`
)

// The feed turned into deliveries: the enabled endpoints, and for each, in
// one transaction, its cursor (locked), the deliveries of the events after
// it, and the cursor moved past them.
const (
	enabledEndpointsSQL = `SELECT id FROM webhook_endpoints WHERE enabled ORDER BY id`
	lockEndpointFeedSQL = `SELECT org_id, event_types, feed_cursor FROM webhook_endpoints WHERE id = $1 AND enabled
			FOR UPDATE`
	queueDeliveriesSQL = `INSERT INTO webhook_deliveries (org_id, endpoint_id, event_id, event_type, body)
				SELECT $1, $2, e.id, e.type, e.body FROM unnest($3::text[], $4::text[], $5::text[]) AS e (id, type, body)
				ON CONFLICT (endpoint_id, event_id) DO NOTHING`
	advanceFeedCursorSQL = `UPDATE webhook_endpoints SET feed_cursor = $2 WHERE id = $1`
)

// Dead letters: the conditions every filter starts with (an org's dead
// deliveries), then the statements it completes with its conditions.
const (
	deliveriesOfOrgSQL = `d.org_id = $1`
	deadDeliverySQL    = `d.status = 'dead'`
	// deadLettersSQL lists them with their endpoints' URLs: conditions, then
	// deadLettersPageSQL (the page's size), the most recently failed first.
	deadLettersSQL = `SELECT d.id, d.endpoint_id, e.url, d.event_id, d.event_type, d.attempts, d.revivals, d.last_status,
		d.last_error, d.updated_at FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
		WHERE `
	deadLettersPageSQL  = ` ORDER BY d.updated_at DESC, d.id DESC LIMIT %d`
	countDeadLettersSQL = `SELECT count(*) FROM webhook_deliveries d WHERE `
)

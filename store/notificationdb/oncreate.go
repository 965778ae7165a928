package notificationdb

import (
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// OnCreate is what a new ticket's own insert statement writes for
// notifications (ticketdb.InsertNextWith), so that a create stays one
// statement outside a transaction: who starts watching, and the
// notifications (ids, recipients, types; the actor and excerpt shared).
// The statement keeps only the recipients who can read the ticket and
// have not turned the type off, as Insert does.
type OnCreate struct {
	Watch   []uuid.UUID
	IDs     []uuid.UUID
	Users   []uuid.UUID
	Types   []string
	Actor   uuid.UUID
	Excerpt string
}

// CreatedCTEs are the CTEs that write an OnCreate, to follow the new
// ticket's CTE t (its columns id, org_id, project_id, created_at) in a
// WITH list; they take the named arguments Args adds.
const CreatedCTEs = `,
	        nw AS (
	            INSERT INTO ticket_watchers (ticket_id, user_id, org_id, created_at)
	            SELECT t.id, u, t.org_id, t.created_at FROM t, unnest(@watch_users::uuid[]) AS u
	            WHERE member_reads(t.org_id, t.project_id, u)
	            ON CONFLICT DO NOTHING),
	        nn AS (
	            INSERT INTO notifications (id, org_id, user_id, type, ticket_id, project_id, actor_id, excerpt, created_at)
	            SELECT x.id, t.org_id, x.user_id, x.type, t.id, t.project_id, @note_actor, @note_excerpt, t.created_at
	            FROM t, unnest(@note_ids::uuid[], @note_users::uuid[], @note_types::text[]) AS x(id, user_id, type)
	            WHERE member_reads(t.org_id, t.project_id, x.user_id)
	              AND NOT EXISTS (SELECT 1 FROM notification_settings s WHERE s.user_id = x.user_id AND x.type = ANY (s.types_off))
	            RETURNING id, org_id, user_id, type, ticket_id, actor_id, excerpt, created_at),
	        nob AS (
	            INSERT INTO outbox (id, org_id, topic, payload, created_at, traceparent)
	            SELECT id, org_id, '` + TopicCreated + `', jsonb_build_object('id', id, 'org_id', org_id, 'user_id', user_id, 'type', type,
	                'ticket_id', ticket_id, 'actor_id', actor_id, 'excerpt', excerpt, 'created_at', created_at), created_at, @note_traceparent::text
	            FROM nn)`

// Args adds the OnCreate's named arguments to args; tp is the statement's
// traceparent argument.
func (o OnCreate) Args(args pgx.NamedArgs, tp any) {
	args["watch_users"], args["note_ids"], args["note_users"], args["note_types"] = o.Watch, o.IDs, o.Users, o.Types
	args["note_actor"], args["note_excerpt"], args["note_traceparent"] = o.Actor, o.Excerpt, tp
}

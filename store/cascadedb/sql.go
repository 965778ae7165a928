package cascadedb

import (
	"context"
	"fmt"

	"tracker/store"
	"tracker/store/attachmentdb"
)

// stepSQL renders one step's statement for root r: $1 org, $2 root id, $3
// batch limit (every step but the root's, which is one row). "" means the step has nothing to do here.
func stepSQL(ctx context.Context, q store.Querier, r Root, step string) (string, error) {
	scope := ticketScope(r.Type)
	switch step {
	case StepDetachReplies:
		return `UPDATE comments SET parent_comment_id = NULL WHERE id IN (
			SELECT id FROM comments WHERE org_id = $1 AND ticket_id NOT IN (` + scope + `)
			  AND parent_comment_id IN (SELECT id FROM comments WHERE org_id = $1 AND ticket_id IN (` + scope + `))
			LIMIT $3)`, nil
	case StepComments:
		g, err := guard(ctx, q, "comments", "x")
		if err != nil {
			return "", err
		}
		return `DELETE FROM comments WHERE id IN (
			SELECT x.id FROM comments x WHERE x.org_id = $1 AND x.ticket_id IN (` + scope + `) AND ` + g + ` LIMIT $3)`, nil
	case StepTicketLabels:
		return `DELETE FROM ticket_labels WHERE (ticket_id, label_id) IN (
			SELECT ticket_id, label_id FROM ticket_labels WHERE org_id = $1 AND ticket_id IN (` + scope + `) LIMIT $3)`, nil
	case StepTimeEntries:
		return timeEntriesSQL(ctx, q, r, scope)
	case StepAttachments:
		if ok, err := hasTable(ctx, q, "attachments"); err != nil || !ok {
			return "", err
		}
		return attachmentdb.PurgeSQL(scope), nil
	case StepTickets:
		g, err := guard(ctx, q, "tickets", "x")
		if err != nil {
			return "", err
		}
		return withTags("tickets", "ticket", `
			SELECT x.id FROM tickets x WHERE x.id IN (`+scope+`) AND `+g+` LIMIT $3`), nil
	case StepTombstones:
		return `UPDATE tickets SET deleted_at = COALESCE(deleted_at, now()), sprint_id = NULL WHERE id IN (
			SELECT id FROM tickets WHERE org_id = $1 AND (deleted_at IS NULL OR sprint_id IS NOT NULL) AND id IN (` + scope + `)
			LIMIT $3)`, nil
	case StepSprints:
		g, err := guard(ctx, q, "sprints", "x")
		if err != nil {
			return "", err
		}
		return `DELETE FROM sprints WHERE id IN (
			SELECT x.id FROM sprints x WHERE x.org_id = $1 AND x.project_id = $2 AND ` + g + ` LIMIT $3)`, nil
	case StepProjectMembers:
		return `DELETE FROM project_members WHERE (project_id, user_id) IN (
			SELECT project_id, user_id FROM project_members WHERE org_id = $1 AND project_id = $2 LIMIT $3)`, nil
	case StepLabelLinks:
		return `DELETE FROM ticket_labels WHERE (ticket_id, label_id) IN (
			SELECT ticket_id, label_id FROM ticket_labels WHERE org_id = $1 AND label_id = $2 LIMIT $3)`, nil
	case StepFieldValues:
		// Each batch rewrites its tickets' rendered copies
		// (tickets.custom_fields) without the field, which is already
		// marked deleted, so the copies render without it.
		return `WITH d AS (DELETE FROM ticket_custom_values WHERE (ticket_id, field_id) IN (
			SELECT ticket_id, field_id FROM ticket_custom_values WHERE field_id = $2 AND org_id = $1 LIMIT $3)
			RETURNING ticket_id),
			c AS (UPDATE tickets SET custom_fields = ticket_custom_fields_json(id) WHERE id IN (SELECT ticket_id FROM d))
			SELECT count(*) FROM d`, nil
	case StepRoot:
		return rootSQL(ctx, q, r)
	}
	return "", fmt.Errorf("cascade: unknown step %q", step)
}

// withTags deletes the rows of table whose ids ids selects, and their entity
// tags (entity_type tagType) in the same statement, returning the count.
func withTags(table, tagType, ids string) string {
	return `WITH d AS (DELETE FROM ` + table + ` WHERE id IN (` + ids + `) RETURNING id),
		t AS (DELETE FROM entity_tags WHERE org_id = $1 AND entity_type = '` + tagType + `' AND entity_id IN (SELECT id FROM d))
		SELECT count(*) FROM d`
}

// timeEntriesSQL deletes the Draft and Submitted entries of the root's
// tickets (and, for a project, of the project); Approved ones are financial
// records and stay, keeping their ticket and project as tombstones.
func timeEntriesSQL(ctx context.Context, q store.Querier, r Root, scope string) (string, error) {
	ok, err := hasTable(ctx, q, "time_entries")
	if err != nil || !ok {
		return "", err
	}
	if ok, err = hasColumns(ctx, q, "time_entries", "org_id", "ticket_id", "status"); err != nil || !ok {
		return "", err
	}
	cond := `x.ticket_id IN (` + scope + `)`
	if r.Type == "project" {
		hasProject, err := hasColumns(ctx, q, "time_entries", "project_id")
		if err != nil {
			return "", err
		}
		if hasProject {
			cond = `(x.project_id = $2 OR ` + cond + `)`
		}
	}
	g, err := guard(ctx, q, "time_entries", "x")
	if err != nil {
		return "", err
	}
	return withTags("time_entries", "time_entry", `
		SELECT x.id FROM time_entries x WHERE x.org_id = $1 AND `+cond+` AND x.status <> 'Approved' AND `+g+` LIMIT $3`), nil
}

// rootSQL deletes the root itself if it is still soft-deleted and nothing
// references it any more; otherwise it stays as a tombstone.
func rootSQL(ctx context.Context, q store.Querier, r Root) (string, error) {
	table, ok := rootTables[r.Type]
	if !ok {
		return "", fmt.Errorf("cascade: unknown root type %q", r.Type)
	}
	g, err := guard(ctx, q, table, "x")
	if err != nil {
		return "", err
	}
	ids := `SELECT x.id FROM ` + table + ` x WHERE x.org_id = $1 AND x.id = $2 AND x.deleted_at IS NOT NULL AND ` + g
	if r.Type == "project" {
		return withTags("projects", "project", ids), nil
	}
	return `WITH d AS (DELETE FROM ` + table + ` WHERE id IN (` + ids + `) RETURNING id) SELECT count(*) FROM d`, nil
}

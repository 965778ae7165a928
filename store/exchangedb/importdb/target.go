package importdb

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"tracker/store"
)

// TargetStatuses are the statuses (JSON, as workflows store them) of the
// workflow a project of key would use in the org: the live project's own,
// else the org's Default; nil when the org has no Default workflow.
func TargetStatuses(ctx context.Context, q store.Querier, orgID uuid.UUID, key string) ([]byte, error) {
	var b []byte
	err := q.QueryRow(ctx, `SELECT w.statuses FROM workflows w
	    LEFT JOIN projects p ON p.org_id = w.org_id AND upper(p.key) = upper($2) AND p.deleted_at IS NULL
	    WHERE w.org_id = $1 AND (w.id = p.workflow_id OR (p.workflow_id IS NULL AND w.name = 'Default'))
	    ORDER BY (w.id = p.workflow_id) DESC NULLS LAST LIMIT 1`, orgID, key).Scan(&b)
	if err != nil {
		err = store.Translate(err)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
	}
	return b, err
}

// OrgMemberEmails are the emails (lower case) of the org's members.
func OrgMemberEmails(ctx context.Context, q store.Querier, orgID uuid.UUID) (map[string]bool, error) {
	m, err := pairs(ctx, q, `SELECT lower(u.email), u.id FROM users u
	    JOIN memberships m ON m.user_id = u.id AND m.org_id = $1`, orgID)
	return keysOf(m), err
}

// UserEmail is a user's email.
func UserEmail(ctx context.Context, q store.Querier, id uuid.UUID) (string, error) {
	var e string
	err := q.QueryRow(ctx, `SELECT email FROM users WHERE id = $1`, id).Scan(&e)
	return e, store.Translate(err)
}

package chatdb

import (
	"context"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// openOrg is the condition that workspaces connected to no org may reach
// the org whose id is orgExpr: it has connected no workspace of its own
// (an unproven claim counts: it only ever closes the org that made it) and
// has not turned unconnected workspaces away (no settings row: it accepts).
func openOrg(orgExpr string) string {
	return strings.NewReplacer("$org", orgExpr).Replace(`(NOT EXISTS (SELECT 1 FROM chat_workspaces ow WHERE ow.org_id = $org)
		AND coalesce((SELECT os.accept_unconnected_workspaces FROM chat_settings os WHERE os.org_id = $org), true))`)
}

// Settings is a chat_settings row.
type Settings struct {
	OrgID                       uuid.UUID  `db:"org_id"`
	AcceptUnconnectedWorkspaces bool       `db:"accept_unconnected_workspaces"`
	UpdatedBy                   *uuid.UUID `db:"updated_by"`
	UpdatedAt                   time.Time  `db:"updated_at"`
}

// GetSettings reads an org's settings; an org without a row has the
// defaults (accepting unconnected workspaces) and a zero UpdatedAt.
func GetSettings(ctx context.Context, q store.Querier, orgID uuid.UUID) (Settings, error) {
	s, err := store.Get[Settings](ctx, q, store.SQL.Select("org_id", "accept_unconnected_workspaces", "updated_by", "updated_at").
		From("chat_settings").Where(sq.Eq{"org_id": orgID}))
	if err == store.ErrNotFound {
		return Settings{OrgID: orgID, AcceptUnconnectedWorkspaces: true}, nil
	}
	return s, err
}

// PutSettings stores an org's settings.
func PutSettings(ctx context.Context, q store.Querier, s Settings) error {
	_, err := q.Exec(ctx, `INSERT INTO chat_settings (org_id, accept_unconnected_workspaces, updated_by, updated_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (org_id) DO UPDATE SET accept_unconnected_workspaces = EXCLUDED.accept_unconnected_workspaces,
		updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`, s.OrgID, s.AcceptUnconnectedWorkspaces, s.UpdatedBy, s.UpdatedAt)
	return store.Translate(err)
}

// OpenToUnconnected says whether workspaces connected to no org may reach
// orgID (see openOrg).
func OpenToUnconnected(ctx context.Context, q store.Querier, orgID uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select(openOrg("o.id")).From("organizations o").Where(sq.Eq{"o.id": orgID}))
}

// OpenOrgsWithKey lists the orgs holding a live project keyed key (any
// case) that workspaces connected to no org may reach. An org closed to
// them is not counted, so an answer never tells that it holds the key.
func OpenOrgsWithKey(ctx context.Context, q store.Querier, key string) ([]uuid.UUID, error) {
	return store.Column[uuid.UUID](ctx, q, `SELECT DISTINCT p.org_id FROM projects p
		WHERE upper(p.key) = upper($1) AND p.deleted_at IS NULL AND `+openOrg("p.org_id")+`
		ORDER BY p.org_id`, key)
}

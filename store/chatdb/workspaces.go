package chatdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Workspace is a chat_workspaces row: a chat workspace (team) connected to
// one org. InstalledAt is when the app's install proved it for the org;
// nil is a claim made by team id alone, which routes nothing.
type Workspace struct {
	TeamID      string     `db:"team_id"`
	OrgID       uuid.UUID  `db:"org_id"`
	TeamName    *string    `db:"team_name"`
	BotTokenEnc []byte     `db:"bot_token_enc"`
	CreatedBy   *uuid.UUID `db:"created_by"`
	CreatedAt   time.Time  `db:"created_at"`
	InstalledAt *time.Time `db:"installed_at"`
}

func workspaceColumns() []string {
	return []string{"team_id", "org_id", "team_name", "bot_token_enc", "created_by", "created_at", "installed_at"}
}

// InsertWorkspace connects a workspace; a team already connected (to any
// org) is store.ErrConflict.
func InsertWorkspace(ctx context.Context, q store.Querier, w Workspace) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("chat_workspaces").Columns(workspaceColumns()...).
		Values(w.TeamID, w.OrgID, w.TeamName, w.BotTokenEnc, w.CreatedBy, w.CreatedAt, w.InstalledAt))
	return err
}

// ReplaceWorkspace rewrites a team's row whole (a reinstall, or an install
// taking the team from an unproven claim).
func ReplaceWorkspace(ctx context.Context, q store.Querier, w Workspace) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("chat_workspaces").Set("org_id", w.OrgID).Set("team_name", w.TeamName).
		Set("bot_token_enc", w.BotTokenEnc).Set("created_by", w.CreatedBy).Set("created_at", w.CreatedAt).
		Set("installed_at", w.InstalledAt).Where(sq.Eq{"team_id": w.TeamID}))
	return err
}

// GetWorkspaceForUpdate reads a team's row, proven or not, locked for the install
// that decides what becomes of it.
func GetWorkspaceForUpdate(ctx context.Context, q store.Querier, teamID string) (Workspace, error) {
	return store.Get[Workspace](ctx, q, store.SQL.Select(workspaceColumns()...).From("chat_workspaces").
		Where(sq.Eq{"team_id": teamID}).Suffix("FOR UPDATE"))
}

// ConnectedWorkspace reads the org connection of a team, proven by the
// app's install (the signed requests name only the team): an unproven
// claim is store.ErrNotFound.
func ConnectedWorkspace(ctx context.Context, q store.Querier, teamID string) (Workspace, error) {
	return store.Get[Workspace](ctx, q, store.SQL.Select(workspaceColumns()...).From("chat_workspaces").
		Where(sq.Eq{"team_id": teamID}).Where("installed_at IS NOT NULL"))
}

// WorkspaceOfOrg is an org's first connected workspace (its bot token posts
// the org's notifications).
func WorkspaceOfOrg(ctx context.Context, q store.Querier, orgID uuid.UUID) (Workspace, error) {
	return store.Get[Workspace](ctx, q, store.SQL.Select(workspaceColumns()...).From("chat_workspaces").
		Where(sq.Eq{"org_id": orgID}).OrderBy("created_at", "team_id").Limit(1))
}

// WorkspacesOfOrg lists an org's workspaces (few: not paged).
func WorkspacesOfOrg(ctx context.Context, q store.Querier, orgID uuid.UUID) ([]Workspace, error) {
	return store.Select[Workspace](ctx, q, store.SQL.Select(workspaceColumns()...).From("chat_workspaces").
		Where(sq.Eq{"org_id": orgID}).OrderBy("created_at", "team_id").Limit(1000))
}

// DeleteWorkspace disconnects a workspace of orgID.
func DeleteWorkspace(ctx context.Context, q store.Querier, orgID uuid.UUID, teamID string) (int64, error) {
	return store.Exec(ctx, q, store.SQL.Delete("chat_workspaces").Where(sq.Eq{"team_id": teamID, "org_id": orgID}))
}

// Identity is a chat_identities row: a chat user linked to an org member.
type Identity struct {
	OrgID       uuid.UUID `db:"org_id"`
	UserID      uuid.UUID `db:"user_id"`
	SlackUserID string    `db:"slack_user_id"`
	CreatedAt   time.Time `db:"created_at"`
}

// LinkIdentity links a member to a chat user in an org, replacing the
// member's previous link; a chat user linked to another member is
// store.ErrConflict.
func LinkIdentity(ctx context.Context, q store.Querier, i Identity) (Identity, error) {
	if _, err := store.Exec(ctx, q, store.SQL.Delete("chat_identities").Where(sq.Eq{"org_id": i.OrgID, "user_id": i.UserID})); err != nil {
		return Identity{}, err
	}
	return store.GetRaw[Identity](ctx, q, `INSERT INTO chat_identities (org_id, user_id, slack_user_id, created_at)
		VALUES ($1, $2, $3, $4) RETURNING org_id, user_id, slack_user_id, created_at`, i.OrgID, i.UserID, i.SlackUserID, i.CreatedAt)
}

// IdentityOfUser reads a member's link in an org.
func IdentityOfUser(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) (Identity, error) {
	return store.Get[Identity](ctx, q, store.SQL.Select("org_id", "user_id", "slack_user_id", "created_at").
		From("chat_identities").Where(sq.Eq{"org_id": orgID, "user_id": userID}))
}

// MemberOfChatUser is the member a chat user acts as in an org: linked,
// still a member and active.
func MemberOfChatUser(ctx context.Context, q store.Querier, orgID uuid.UUID, slackUserID string) (uuid.UUID, error) {
	return store.Scalar[uuid.UUID](ctx, q, store.SQL.Select("i.user_id").From("chat_identities i").
		Join("memberships m ON m.org_id = i.org_id AND m.user_id = i.user_id AND m.suspended_at IS NULL").
		Join("users u ON u.id = i.user_id AND u.active").
		Where(sq.Eq{"i.org_id": orgID, "i.slack_user_id": slackUserID}))
}

// MemberByEmail is the active member of orgID with this email.
func MemberByEmail(ctx context.Context, q store.Querier, orgID uuid.UUID, email string) (uuid.UUID, error) {
	return store.Scalar[uuid.UUID](ctx, q, store.SQL.Select("u.id").From("users u").
		Join("memberships m ON m.user_id = u.id AND m.suspended_at IS NULL").
		Where(sq.Eq{"m.org_id": orgID, "u.active": true}).Where("lower(u.email) = lower(?)", email))
}

// UnlinkIdentity removes a member's link in an org.
func UnlinkIdentity(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) (int64, error) {
	return store.Exec(ctx, q, store.SQL.Delete("chat_identities").Where(sq.Eq{"org_id": orgID, "user_id": userID}))
}

// Event is a chat_events row: an event id seen once.
type Event struct {
	EventID   string     `db:"event_id"`
	OrgID     *uuid.UUID `db:"org_id"`
	CommentID *uuid.UUID `db:"comment_id"`
	Outcome   *string    `db:"outcome"`
	CreatedAt time.Time  `db:"created_at"`
}

// ClaimEvent records an event id; false when it was seen before (Slack
// retries a delivery it thinks failed).
func ClaimEvent(ctx context.Context, q store.Querier, eventID string, orgID *uuid.UUID, at time.Time) (bool, error) {
	n, err := store.Exec(ctx, q, store.SQL.Insert("chat_events").Columns("event_id", "org_id", "created_at").
		Values(eventID, orgID, at).Suffix("ON CONFLICT (event_id) DO NOTHING"))
	return n == 1, err
}

// GetEventForUpdate reads and locks an event's row.
func GetEventForUpdate(ctx context.Context, q store.Querier, eventID string) (Event, error) {
	return store.Get[Event](ctx, q, store.SQL.Select("event_id", "org_id", "comment_id", "outcome", "created_at").
		From("chat_events").Where(sq.Eq{"event_id": eventID}).Suffix("FOR UPDATE"))
}

// GetEvent reads an event's row.
func GetEvent(ctx context.Context, q store.Querier, eventID string) (Event, error) {
	return store.Get[Event](ctx, q, store.SQL.Select("event_id", "org_id", "comment_id", "outcome", "created_at").
		From("chat_events").Where(sq.Eq{"event_id": eventID}))
}

// SetEventOutcome records what an event became.
func SetEventOutcome(ctx context.Context, q store.Querier, eventID string, commentID *uuid.UUID, outcome string) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("chat_events").Set("comment_id", commentID).Set("outcome", outcome).
		Where(sq.Eq{"event_id": eventID}))
	return err
}

// UserName is a user's display name ("" if gone).
func UserName(ctx context.Context, q store.Querier, id uuid.UUID) (string, error) {
	n, err := store.Scalar[string](ctx, q, store.SQL.Select("display_name").From("users").Where(sq.Eq{"id": id}))
	if err == store.ErrNotFound {
		return "", nil
	}
	return n, err
}

// ProjectByKey is the live project keyed key (any case) in orgID.
func ProjectByKey(ctx context.Context, q store.Querier, orgID uuid.UUID, key string) (uuid.UUID, error) {
	return store.Scalar[uuid.UUID](ctx, q, store.SQL.Select("id").From("projects").
		Where(sq.Eq{"org_id": orgID, "deleted_at": nil}).Where("upper(key) = upper(?)", key))
}

package chat

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/chatdb"
)

// Workspace is a chat workspace connected to an org; the bot token is never
// shown (has_bot_token says whether one is stored). installed_at is when
// the app's install proved the workspace; null is a claim made by team id
// alone before the install existed, which routes nothing to the org.
type Workspace struct {
	TeamID      string     `json:"team_id"`
	OrgID       uuid.UUID  `json:"org_id"`
	TeamName    *string    `json:"team_name"`
	HasBotToken bool       `json:"has_bot_token"`
	InstalledAt *time.Time `json:"installed_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

func toWorkspace(r chatdb.Workspace) Workspace {
	w := Workspace{TeamID: r.TeamID, OrgID: r.OrgID, TeamName: r.TeamName, HasBotToken: len(r.BotTokenEnc) > 0,
		CreatedAt: r.CreatedAt.UTC()}
	if r.InstalledAt != nil {
		at := r.InstalledAt.UTC()
		w.InstalledAt = &at
	}
	return w
}

var (
	teamPattern  = regexp.MustCompile(`^[A-Z0-9]{1,40}$`)
	tokenPattern = regexp.MustCompile(`^xox[a-z]-[A-Za-z0-9-]{1,250}$`)
)

// Workspaces lists an org's connected workspaces (Admin).
func (s *Service) Workspaces(ctx context.Context, p domain.Principal, orgID uuid.UUID, _ domain.Page) (domain.Paged[Workspace], error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
		return domain.Paged[Workspace]{}, err
	}
	rows, err := chatdb.WorkspacesOfOrg(ctx, q, orgID)
	if err != nil {
		return domain.Paged[Workspace]{}, err
	}
	return domain.MapPage(domain.Paged[chatdb.Workspace]{Items: rows}, toWorkspace), nil
}

// Disconnect removes a workspace of an org (Admin): its commands and events
// then act as with no workspace connected.
func (s *Service) Disconnect(ctx context.Context, p domain.Principal, orgID uuid.UUID, teamID string) error {
	if !teamPattern.MatchString(teamID) {
		teamID = "" // matches no row: 404 after the access check
	}
	return s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		n, err := chatdb.DeleteWorkspace(ctx, q, orgID, teamID)
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.NotFound("chat workspace")
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "organization",
			EntityID: orgID, Action: "chat_workspace_disconnected", Changes: []domain.FieldChange{{Field: "team_id", Old: teamID}}})
	})
}

// botToken is the token for an org's chat calls: its workspace's own, else
// the service's.
func (s *Service) botToken(w *chatdb.Workspace) string {
	if w != nil && len(w.BotTokenEnc) > 0 && s.Box != nil {
		if b, err := s.Box.Open(w.BotTokenEnc, w.OrgID[:]); err == nil {
			return string(b)
		}
	}
	return s.BotToken
}

// Identity is a member's linked chat user in an org.
type Identity struct {
	OrgID       uuid.UUID `json:"org_id"`
	UserID      uuid.UUID `json:"user_id"`
	SlackUserID string    `json:"slack_user_id"`
	CreatedAt   time.Time `json:"created_at"`
}

func toIdentity(r chatdb.Identity) Identity {
	return Identity{OrgID: r.OrgID, UserID: r.UserID, SlackUserID: r.SlackUserID, CreatedAt: r.CreatedAt.UTC()}
}

// LinkMe links the caller, in an org they belong to (any role), to a chat
// user: their commands and thread replies then act as them. One chat user
// per member and one member per chat user in an org (409).
func (s *Service) LinkMe(ctx context.Context, p domain.Principal, orgID uuid.UUID, slackUserID string) (Identity, error) {
	if !userPattern.MatchString(slackUserID) {
		return Identity{}, domain.Invalid("slack_user_id: must be a chat user id such as U0123ABCD")
	}
	var out Identity
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
			return err
		}
		r, err := chatdb.LinkIdentity(ctx, q, chatdb.Identity{OrgID: orgID, UserID: p.UserID, SlackUserID: slackUserID, CreatedAt: s.now()})
		if errors.Is(err, store.ErrConflict) {
			return domain.Conflict("this chat user is linked to another member of the organization", "slack_user_id: "+slackUserID)
		}
		out = toIdentity(r)
		return err
	})
	return out, err
}

// Me reads the caller's link in an org (404 when none).
func (s *Service) Me(ctx context.Context, p domain.Principal, orgID uuid.UUID) (Identity, error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
		return Identity{}, err
	}
	r, err := chatdb.IdentityOfUser(ctx, q, orgID, p.UserID)
	if err != nil {
		return Identity{}, domain.NotFoundAs(err, "chat identity")
	}
	return toIdentity(r), nil
}

// UnlinkMe removes the caller's link in an org.
func (s *Service) UnlinkMe(ctx context.Context, p domain.Principal, orgID uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
			return err
		}
		n, err := chatdb.UnlinkIdentity(ctx, q, orgID, p.UserID)
		if err == nil && n == 0 {
			return domain.NotFound("chat identity")
		}
		return err
	})
}

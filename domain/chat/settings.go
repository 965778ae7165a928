package chat

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/chatdb"
)

// Settings are an org's chat settings as the API renders them.
type Settings struct {
	// AcceptUnconnectedWorkspaces is the org's choice (default true): may
	// workspaces connected to no org reach it in the installation tenancy.
	AcceptUnconnectedWorkspaces bool `json:"accept_unconnected_workspaces"`
	// Tenancy is the service's SERVICE_CHAT_TENANCY.
	Tenancy string `json:"tenancy"`
	// ReachableFromUnconnectedWorkspaces is the outcome: the installation
	// tenancy, the org accepting them and no workspace connected to it.
	ReachableFromUnconnectedWorkspaces bool `json:"reachable_from_unconnected_workspaces"`
}

func (s *Service) tenancy() string {
	if s.installationTenancy() {
		return TenancyInstallation
	}
	return TenancyConnected
}

func (s *Service) settings(ctx context.Context, q store.Querier, orgID uuid.UUID) (Settings, error) {
	r, err := chatdb.GetSettings(ctx, q, orgID)
	if err != nil {
		return Settings{}, err
	}
	open, err := chatdb.OpenToUnconnected(ctx, q, orgID)
	if err != nil {
		return Settings{}, err
	}
	return Settings{AcceptUnconnectedWorkspaces: r.AcceptUnconnectedWorkspaces, Tenancy: s.tenancy(),
		ReachableFromUnconnectedWorkspaces: open && s.installationTenancy()}, nil
}

// GetSettings reads an org's chat settings (Admin).
func (s *Service) GetSettings(ctx context.Context, p domain.Principal, orgID uuid.UUID) (Settings, error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
		return Settings{}, err
	}
	return s.settings(ctx, q, orgID)
}

// PutSettings sets whether workspaces connected to no org may reach the
// org (Admin). Stored in either tenancy; it acts in the installation one.
func (s *Service) PutSettings(ctx context.Context, p domain.Principal, orgID uuid.UUID, accept *bool) (Settings, error) {
	var out Settings
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		if accept == nil {
			return domain.Invalid("accept_unconnected_workspaces: required, true or false")
		}
		old, err := chatdb.GetSettings(ctx, q, orgID)
		if err != nil {
			return err
		}
		if err := chatdb.PutSettings(ctx, q, chatdb.Settings{OrgID: orgID, AcceptUnconnectedWorkspaces: *accept,
			UpdatedBy: &p.UserID, UpdatedAt: s.now()}); err != nil {
			return err
		}
		if out, err = s.settings(ctx, q, orgID); err != nil {
			return err
		}
		if old.AcceptUnconnectedWorkspaces == *accept {
			return nil
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "organization",
			EntityID: orgID, Action: "chat_settings_updated", Changes: []domain.FieldChange{{Field: "accept_unconnected_workspaces",
				Old: old.AcceptUnconnectedWorkspaces, New: *accept}}})
	})
	return out, err
}

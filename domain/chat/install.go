package chat

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/slack-go/slack"

	"tracker/domain"
	"tracker/store"
	"tracker/store/chatdb"
)

// A workspace is connected to an org through the chat app's OAuth install
// (Slack's "Add to Slack", OAuth v2): an Admin asks for an authorize URL
// carrying a single-use state bound to the org and to them; the chat
// service asks its user to install the app in a workspace they may install
// it in, then sends the browser to the callback with a code; the code,
// with the app's client id and secret, buys from oauth.v2.access the
// workspace's id and a bot token. Only the chat service names the
// workspace, so an org connects only a workspace one of its admins
// installed the app in.

// InstallTTL is how long an install may take from the authorize URL to the
// callback.
const InstallTTL = 10 * time.Minute

// InstallScopes are the bot scopes the install asks for: the slash command,
// posting, and naming chat users (and matching them to members by email).
const InstallScopes = "commands,chat:write,users:read,users:read.email"

// CallbackPath is the install callback's path under SERVICE_PUBLIC_URL:
// the app's redirect URL in the chat service.
const CallbackPath = "/api/v1/integrations/chat/oauth/callback"

// Install is the answer to an Admin starting an install.
type Install struct {
	AuthorizeURL string    `json:"authorize_url"`
	State        string    `json:"state"`
	RedirectURI  string    `json:"redirect_uri"`
	ExpiresAt    time.Time `json:"expires_at"`
}

// Callback is what the chat service sends the browser back with.
type Callback struct {
	Code  string
	State string
	// Error is set instead of a code when the install did not happen
	// (access_denied: the user cancelled).
	Error string
}

func (s *Service) redirectURI() string { return strings.TrimRight(s.PublicURL, "/") + CallbackPath }

// authorizeURL is the chat service's authorize page: Slack's, or the one on
// the origin of SERVICE_CHAT_API_URL (a stand-in or proxy).
func (s *Service) authorizeURL() string {
	if u, err := url.Parse(s.APIURL); err == nil && s.APIURL != "" && u.Host != "" {
		return u.Scheme + "://" + u.Host + "/oauth/v2/authorize"
	}
	return "https://slack.com/oauth/v2/authorize"
}

func (s *Service) installConfigured() error {
	if s.ClientID == "" || s.ClientSecret == "" {
		return domain.Unavailable("the chat app's install is not configured (SERVICE_CHAT_CLIENT_ID, SERVICE_CHAT_CLIENT_SECRET)")
	}
	if s.Box == nil {
		return domain.Unavailable("no secrets key is configured (SERVICE_SECRETS_KEY)")
	}
	return nil
}

func hashState(state string) []byte {
	h := sha256.Sum256([]byte(state))
	return h[:]
}

// StartInstall answers the authorize URL an Admin opens to install the chat
// app in a workspace for orgID. Its state is stored as a hash, spent on
// first use, valid for InstallTTL and bound to the org and the caller.
func (s *Service) StartInstall(ctx context.Context, p domain.Principal, orgID uuid.UUID) (Install, error) {
	var out Install
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		if err := s.installConfigured(); err != nil {
			return err
		}
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		state := base64.RawURLEncoding.EncodeToString(b)
		now := s.now()
		out = Install{State: state, RedirectURI: s.redirectURI(), ExpiresAt: now.Add(InstallTTL).UTC()}
		out.AuthorizeURL = s.authorizeURL() + "?" + url.Values{"client_id": {s.ClientID}, "scope": {InstallScopes},
			"redirect_uri": {out.RedirectURI}, "state": {state}}.Encode()
		return chatdb.InsertInstallState(ctx, q, chatdb.InstallState{StateHash: hashState(state), OrgID: orgID, CreatedBy: p.UserID,
			ExpiresAt: now.Add(InstallTTL), CreatedAt: now})
	})
	return out, err
}

var errorCodePattern = regexp.MustCompile(`^[a-z_]{1,64}$`)

// FinishInstall ends an install at the callback (public: the state is the
// credential). The state is claimed first, in its own statement, so it is
// spent even when the install then fails. The code is exchanged with
// oauth.v2.access; the workspace it names is connected to the state's org,
// with its bot token sealed, if the Admin who started is still an Admin
// and the chat account that approved (users.info email) is an Admin too:
// created (true) for a workspace connected nowhere or only claimed by team
// id; a reinstall in the same org refreshes the token (false); a workspace
// the app's install connected to another org is a 409 and nothing changes.
func (s *Service) FinishInstall(ctx context.Context, in Callback) (Workspace, bool, error) {
	if in.State == "" {
		return Workspace{}, false, installFailed("the state is missing")
	}
	st, err := chatdb.ClaimInstallState(ctx, s.DB.Q(), hashState(in.State))
	if errors.Is(err, store.ErrNotFound) {
		return Workspace{}, false, installFailed("unknown or already used state")
	}
	if err != nil {
		return Workspace{}, false, err
	}
	if !s.now().Before(st.ExpiresAt) {
		return Workspace{}, false, installFailed("the install expired")
	}
	if in.Error != "" {
		reason := "the chat service did not install the app"
		if errorCodePattern.MatchString(in.Error) {
			reason += " (" + in.Error + ")"
		}
		return Workspace{}, false, domain.BadRequest(reason + "; start the install again")
	}
	if in.Code == "" {
		return Workspace{}, false, domain.Invalid("code: required")
	}
	if err := s.installConfigured(); err != nil {
		return Workspace{}, false, err
	}
	granted, err := s.exchange(ctx, in.Code)
	if err != nil {
		return Workspace{}, false, err
	}
	email, err := s.installerEmail(ctx, granted)
	if err != nil {
		return Workspace{}, false, err
	}
	var out Workspace
	created := false
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, principal(st.OrgID, st.CreatedBy), st.OrgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		// The person who approved in the chat service must be an Admin of
		// the org too: an authorize URL started by another org's admin and
		// approved by this workspace's admin (who cannot tell the orgs
		// apart on the chat service's page) connects nothing.
		installer, err := chatdb.MemberByEmail(ctx, q, st.OrgID, email)
		if err == nil {
			_, err = domain.OrgAccess(ctx, q, principal(st.OrgID, installer), st.OrgID, domain.RoleAdmin, "organization")
		}
		if err != nil {
			if domain.AsError(err).Kind == domain.KindInternal {
				return err
			}
			return errInstallerNotAdmin
		}
		now := s.now()
		w := chatdb.Workspace{TeamID: granted.Team.ID, OrgID: st.OrgID, CreatedBy: &st.CreatedBy, CreatedAt: now, InstalledAt: &now,
			BotTokenEnc: s.Box.Seal([]byte(granted.AccessToken), st.OrgID[:])}
		if name := strings.TrimSpace(granted.Team.Name); name != "" && len(name) <= 255 && domain.ValidText(name) {
			w.TeamName = &name
		}
		old, err := chatdb.GetWorkspaceForUpdate(ctx, q, w.TeamID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			created = true
			err = chatdb.InsertWorkspace(ctx, q, w)
		case err != nil:
		case old.OrgID == st.OrgID:
			w.CreatedAt, w.CreatedBy = old.CreatedAt, old.CreatedBy
			err = chatdb.ReplaceWorkspace(ctx, q, w)
		case old.InstalledAt != nil:
			return domain.Conflict("this chat workspace is connected to another organization; an admin of that organization "+
				"must disconnect it first", "team_id: "+w.TeamID)
		default:
			// The other org only named the team: the install proves this one.
			created = true
			if err = chatdb.ReplaceWorkspace(ctx, q, w); err == nil {
				err = domain.Record(ctx, q, domain.Change{At: now, OrgID: old.OrgID, EntityType: "organization", EntityID: old.OrgID,
					Action: "chat_workspace_claim_replaced", Changes: []domain.FieldChange{{Field: "team_id", Old: w.TeamID}}})
			}
		}
		if err != nil {
			return err
		}
		out = toWorkspace(w)
		action := "chat_workspace_connected"
		if !created {
			action = "chat_workspace_reinstalled"
		}
		return domain.Record(ctx, q, domain.Change{At: now, OrgID: st.OrgID, ActorID: &st.CreatedBy, EntityType: "organization",
			EntityID: st.OrgID, Action: action, Changes: []domain.FieldChange{{Field: "team_id", New: w.TeamID}}})
	})
	return out, created, err
}

var errInstallerNotAdmin = domain.Forbidden("the chat account that approved the install is not an Admin of the organization " +
	"the install was started for: its email (in the chat service's profile) must be the email of one of its Admins")

// installerEmail is the email of the chat account that approved the
// install (oauth.v2.access's authed_user), read with the new bot token.
func (s *Service) installerEmail(ctx context.Context, r *slack.OAuthV2Response) (string, error) {
	if !userPattern.MatchString(r.AuthedUser.ID) {
		return "", errInstallerNotAdmin
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	u, err := SlackClient(r.AccessToken, s.APIURL).GetUserInfoContext(lctx, r.AuthedUser.ID)
	var se slack.SlackErrorResponse
	switch {
	case errors.As(err, &se):
		return "", errInstallerNotAdmin
	case err != nil:
		return "", domain.Unavailable("the chat service did not answer the install; start it again")
	case u.Profile.Email == "" || u.IsBot:
		return "", errInstallerNotAdmin
	}
	return u.Profile.Email, nil
}

func installFailed(reason string) error {
	return domain.Unauthorized("chat install failed: " + reason + "; start the install again")
}

// exchange buys the workspace and its bot token with the code, from
// oauth.v2.access with the app's client id and secret (slack-go). What the
// chat service refuses is a 401, what it does not answer a 503.
func (s *Service) exchange(ctx context.Context, code string) (*slack.OAuthV2Response, error) {
	hc := s.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	var opts []slack.OAuthOption
	if s.APIURL != "" {
		opts = append(opts, slack.OAuthOptionAPIURL(strings.TrimRight(s.APIURL, "/")+"/"))
	}
	r, err := slack.GetOAuthV2ResponseContext(ctx, hc, s.ClientID, s.ClientSecret, code, s.redirectURI(), opts...)
	var se slack.SlackErrorResponse
	switch {
	case errors.As(err, &se):
		reason := "the chat service refused the code"
		if errorCodePattern.MatchString(se.Err) {
			reason += " (" + se.Err + ")"
		}
		return nil, installFailed(reason)
	case err != nil:
		return nil, domain.Unavailable("the chat service did not answer the install; start it again")
	case r.IsEnterpriseInstall || r.Team.ID == "":
		return nil, domain.Invalidf("an organization-wide (Enterprise Grid) install connects no single workspace: install the app in one workspace")
	case !teamPattern.MatchString(r.Team.ID) || !tokenPattern.MatchString(r.AccessToken) || (r.TokenType != "" && r.TokenType != "bot"):
		return nil, domain.Unavailable("the chat service's answer named no workspace or bot token")
	}
	return r, nil
}

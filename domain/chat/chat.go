// Package chat is the chat integration on Slack's model: notifications
// (queued through the outbox, posted by the ChatNotification workflow),
// ticket thread mappings, workspaces connected to orgs, linked identities,
// channel subscriptions to ticket events, slash commands and events.
package chat

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/ticket"
	"tracker/internal/secretbox"
	"tracker/store"
	"tracker/store/ticketdb"
)

// TopicNotify is the outbox topic of a queued notification (payload NotifyJob).
const TopicNotify = "job.chat_notification"

// NotifyJob is the payload of a TopicNotify row.
type NotifyJob struct {
	NotificationID uuid.UUID `json:"notification_id"`
	OrgID          uuid.UUID `json:"org_id"`
}

// Notification types (the spec's exact values), and ticket_event for
// automatic notifications of subscribed channels.
const (
	TypeAssignment   = "assignment"
	TypeMention      = "mention"
	TypeStatusChange = "status_change"
	TypeCommentSync  = "comment_sync"
	TypeTicketEvent  = "ticket_event"
)

var notifyTypes = []string{TypeAssignment, TypeMention, TypeStatusChange, TypeCommentSync}

// Service runs the chat use cases.
type Service struct {
	DB    *store.DB
	Clock domain.Clock
	Config
}

// Tenancy models: who a workspace connected to no org may act for.
const (
	// TenancyInstallation is the spec's model: the installation trusts the
	// workspaces its chat app is installed in, and a workspace connected to
	// no org resolves project keys across the orgs that accept it.
	TenancyInstallation = "installation"
	// TenancyConnected serves connected workspaces only: anything else is
	// told it is not connected, and nothing is read or written.
	TenancyConnected = "connected"
)

// NotConnected is the answer to a workspace connected to no org in the
// connected tenancy.
const NotConnected = "This workspace is not connected to an organization: an admin of your organization connects it " +
	"by installing the chat app from Tracker (POST /api/v1/orgs/{org_id}/integrations/chat/install)."

// Config is the chat integration's configuration and collaborators.
type Config struct {
	// Tenancy is SERVICE_CHAT_TENANCY, TenancyInstallation or
	// TenancyConnected; empty is TenancyConnected (the safe choice for a
	// service built without it).
	Tenancy string
	// DefaultChannel is SERVICE_CHAT_DEFAULT_CHANNEL: where a notification
	// goes with no channel given and no thread mapped.
	DefaultChannel string
	// SigningSecret is SERVICE_CHAT_SIGNING_SECRET; empty refuses every
	// command and event (401).
	SigningSecret string
	// BotToken is SERVICE_CHAT_BOT_TOKEN, used where a workspace has no
	// token of its own (users.info for identity linking).
	BotToken string
	// APIURL replaces the chat Web API's base URL (SERVICE_CHAT_API_URL);
	// the install's authorize page is then on its origin.
	APIURL string
	// ClientID and ClientSecret are the chat app's OAuth credentials
	// (SERVICE_CHAT_CLIENT_ID, SERVICE_CHAT_CLIENT_SECRET): the install
	// exchanges its code with them. Unset: installs answer 503.
	ClientID, ClientSecret string
	// HTTP calls oauth.v2.access (nil: a client with a 10 s timeout).
	HTTP *http.Client
	// PublicURL links answers to the service.
	PublicURL string
	// Box seals workspace bot tokens.
	Box *secretbox.Box
	// Tickets creates tickets for /ticket create.
	Tickets *ticket.Service
}

// New builds the service with every dependency.
func New(db *store.DB, clock domain.Clock, cfg Config) *Service {
	return &Service{DB: db, Clock: clock, Config: cfg}
}

var (
	channelPattern = regexp.MustCompile(`^[A-Za-z0-9_.#-]{1,80}$`)
	userPattern    = regexp.MustCompile(`^[A-Za-z0-9]{1,40}$`)
	tsPattern      = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{1,9}$`)
)

func checkChannel(p *domain.Problems, field, v string) {
	if v != "" && !channelPattern.MatchString(v) {
		p.Add(field, "must be a chat channel id")
	}
}

func checkTS(p *domain.Problems, field, v string) {
	if v != "" && !tsPattern.MatchString(v) {
		p.Add(field, "must be a chat message timestamp such as 1700000000.000100")
	}
}

func (s *Service) now() time.Time { return s.Clock.Now() }

// installationTenancy says whether workspaces connected to no org act at
// all (in the orgs that accept them).
func (s *Service) installationTenancy() bool { return s.Tenancy == TenancyInstallation }

// ticketFor reads a visible ticket with the caller's access and checks min.
func ticketFor(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID, min domain.Role) (ticketdb.Keyed, error) {
	t, err := ticketdb.KeyedByID(ctx, q, id, p.UserID)
	if err != nil {
		return t, domain.NotFoundAs(err, "ticket")
	}
	_, err = domain.Authorize(p, domain.MembershipFrom(t.AccessRow), min, "ticket")
	return t, err
}

func refOf(t ticketdb.Keyed) string { return fmt.Sprintf("%s-%d", t.ProjectKey, t.Row.TicketNumber) }

func bounded(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// escape neutralises chat markup in user text (Slack's &, <, > rule), so a
// title cannot ping @channel or forge links.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

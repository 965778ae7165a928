package chat

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/slack-go/slack"

	"tracker/domain"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/chatdb"
	"tracker/store/ticketdb"
)

// The chat integration's own user: the actor of what it does for chat users
// not linked to a member, where no workspace is connected (created on first
// use, inactive, no password).
var (
	UserID    = uuid.MustParse("00000000-0000-7000-8000-0000000c4a70")
	userEmail = "chat@integrations.tracker.invalid"
	userName  = "Chat integration"
)

// Command is a slash command's form fields (Slack's names).
type Command struct {
	TeamID      string
	ChannelID   string
	UserID      string
	UserName    string
	Command     string
	Text        string
	ResponseURL string
}

// ParseCommand reads the form-urlencoded body of a slash command.
func ParseCommand(body []byte) (Command, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return Command{}, domain.BadRequest("malformed form body")
	}
	return Command{TeamID: v.Get("team_id"), ChannelID: v.Get("channel_id"), UserID: v.Get("user_id"),
		UserName: v.Get("user_name"), Command: v.Get("command"), Text: v.Get("text"), ResponseURL: v.Get("response_url")}, nil
}

// Reply is a slash command's answer: in_channel with Block Kit blocks for a
// ticket, ephemeral text for usage and refusals.
type Reply struct {
	ResponseType string        `json:"response_type"`
	Text         string        `json:"text"`
	Blocks       []slack.Block `json:"blocks,omitempty"`
}

func ephemeral(text string) Reply {
	return Reply{ResponseType: slack.ResponseTypeEphemeral, Text: text}
}

// Usage is the answer to /ticket help and to anything not understood.
const Usage = "Usage:\n• `/ticket KEY-123` shows a ticket\n• `/ticket create KEY Title of the ticket` creates one in project KEY\n• `/ticket help` shows this"

// linkHint tells an unlinked chat user how to act as themselves.
const linkHint = "Link your account first: your chat profile's email must be the one you use in Tracker, or run " +
	"`PUT /api/v1/integrations/chat/identities/me` with your chat user id."

// FollowupJob is the payload of a TopicCommandFollowup row: after a
// ticket was created from a command, the ChatCommandFollowup workflow
// announces it in the channel, maps the announcement's thread to the ticket
// and tells the command's response_url.
type FollowupJob struct {
	OrgID       uuid.UUID `json:"org_id"`
	TicketID    uuid.UUID `json:"ticket_id"`
	TeamID      string    `json:"team_id"`
	ChannelID   string    `json:"channel_id"`
	ResponseURL string    `json:"response_url"`
	Text        string    `json:"text"`
}

// TopicCommandFollowup is the outbox topic of a command's follow-up.
const TopicCommandFollowup = "job.chat_command_followup"

// HandleCommand answers a verified slash command within the chat service's
// three-second budget: reads and the ticket insert only; the rest is
// queued. Nothing here is a 5xx for the user's input: refusals are
// ephemeral answers.
//
// In the connected tenancy a workspace connected to no org is told so,
// whatever it asked, and nothing else is read or written.
func (s *Service) HandleCommand(ctx context.Context, c Command) (Reply, error) {
	w, err := s.connectedWorkspace(ctx, c.TeamID)
	if err != nil {
		return Reply{}, err
	}
	if w == nil && !s.installationTenancy() {
		return ephemeral(NotConnected), nil
	}
	fields := strings.Fields(c.Text)
	switch {
	case len(fields) == 0, strings.EqualFold(fields[0], "help"):
		return ephemeral(Usage), nil
	case strings.EqualFold(fields[0], "create"):
		if len(fields) < 3 {
			return ephemeral("`/ticket create` needs a project key and a title.\n" + Usage), nil
		}
		key := fields[1]
		title := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c.Text)[len("create"):], " "))
		title = strings.TrimSpace(strings.TrimSpace(title)[len(key):])
		return s.create(ctx, c, w, key, title)
	case len(fields) == 1:
		key, number, ok := ticket.ParseRef(fields[0])
		if !ok {
			return ephemeral(fmt.Sprintf("%q is not a ticket reference such as ABC-12.\n%s", bounded(fields[0], 40), Usage)), nil
		}
		return s.lookup(ctx, c, w, key, number)
	}
	return ephemeral("Unknown command.\n" + Usage), nil
}

// connectedWorkspace is the org connection of a team, proven by the app's
// install (nil: connected to no org).
func (s *Service) connectedWorkspace(ctx context.Context, teamID string) (*chatdb.Workspace, error) {
	w, err := chatdb.ConnectedWorkspace(ctx, s.DB.Q(), teamID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// scope is who a command acts as: the org, the workspace if connected, and
// the linked member (nil: not linked).
type scope struct {
	orgID     uuid.UUID
	workspace *chatdb.Workspace
	member    *uuid.UUID
}

// resolve finds the org for a key: the connected workspace's org, else the
// one org holding the key among those that accept workspaces connected to
// no org (none or several: a refusal text). An org closed to them is not
// counted: the answer is the one for a key that does not exist.
func (s *Service) resolve(ctx context.Context, w *chatdb.Workspace, key string) (scope, string, error) {
	q := s.DB.Q()
	if w != nil {
		if _, err := chatdb.ProjectByKey(ctx, q, w.OrgID, key); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return scope{}, "No project " + strings.ToUpper(key) + " in this workspace's organization.", nil
			}
			return scope{}, "", err
		}
		return scope{orgID: w.OrgID, workspace: w}, "", nil
	}
	orgs, err := chatdb.OpenOrgsWithKey(ctx, q, key)
	if err != nil {
		return scope{}, "", err
	}
	switch len(orgs) {
	case 0:
		return scope{}, "No project " + strings.ToUpper(key) + ".", nil
	case 1:
		return scope{orgID: orgs[0]}, "", nil
	}
	return scope{}, "Project key " + strings.ToUpper(key) + " exists in several organizations; an admin must connect this workspace to one organization.", nil
}

// member is the org member a chat user acts as: linked, or matched now by
// the email users.info reports (then linked). Best effort within the
// command's budget: a slow or failing lookup leaves the user unlinked.
func (s *Service) member(ctx context.Context, sc *scope, slackUserID string) error {
	q := s.DB.Q()
	id, err := chatdb.MemberOfChatUser(ctx, q, sc.orgID, slackUserID)
	if err == nil {
		sc.member = &id
		return nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	token := s.botToken(sc.workspace)
	if token == "" || !userPattern.MatchString(slackUserID) {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	u, err := SlackClient(token, s.APIURL).GetUserInfoContext(lctx, slackUserID)
	if err != nil || u.Profile.Email == "" || u.IsBot {
		return nil
	}
	id, err = chatdb.MemberByEmail(ctx, q, sc.orgID, u.Profile.Email)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	if _, err := chatdb.LinkIdentity(ctx, q, chatdb.Identity{OrgID: sc.orgID, UserID: id, SlackUserID: slackUserID,
		CreatedAt: s.now()}); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	sc.member = &id
	return nil
}

func principal(orgID, userID uuid.UUID) domain.Principal {
	return domain.Principal{UserID: userID, OrgID: orgID, Scopes: []string{domain.ScopeAll}}
}

func (s *Service) lookup(ctx context.Context, c Command, w *chatdb.Workspace, key string, number int64) (Reply, error) {
	sc, refusal, err := s.resolve(ctx, w, key)
	if err != nil || refusal != "" {
		return ephemeral(refusal), err
	}
	if err := s.member(ctx, &sc, c.UserID); err != nil {
		return Reply{}, err
	}
	notFound := ephemeral("No ticket " + ticket.FormatRef(strings.ToUpper(key), number) + ".")
	reader := uuid.Nil
	if sc.member != nil {
		reader = *sc.member
	}
	k, err := ticketdb.KeyedByKey(ctx, s.DB.Q(), sc.orgID, reader, key, number)
	if errors.Is(err, store.ErrNotFound) {
		return notFound, nil
	}
	if err != nil {
		return Reply{}, err
	}
	if sc.member != nil {
		if _, err := domain.Authorize(principal(sc.orgID, *sc.member), domain.MembershipFrom(k.AccessRow), domain.RoleViewer, "ticket"); err != nil {
			return notFound, nil
		}
	}
	return s.ticketReply(ctx, k.Row, k.ProjectKey, "")
}

func (s *Service) create(ctx context.Context, c Command, w *chatdb.Workspace, key, title string) (Reply, error) {
	sc, refusal, err := s.resolve(ctx, w, key)
	if err != nil || refusal != "" {
		return ephemeral(refusal), err
	}
	if err := s.member(ctx, &sc, c.UserID); err != nil {
		return Reply{}, err
	}
	q := s.DB.Q()
	projectID, err := chatdb.ProjectByKey(ctx, q, sc.orgID, key)
	if err != nil {
		return Reply{}, err
	}
	var t ticket.Ticket
	switch {
	case sc.member != nil:
		t, err = s.Tickets.Create(ctx, principal(sc.orgID, *sc.member), projectID, ticket.NewTicket{Content: ticket.Content{Title: title}})
	case sc.workspace != nil:
		return ephemeral("You are not linked to a member of this workspace's organization. " + linkHint), nil
	default:
		if err := accountdb.EnsureSystemUser(ctx, q, UserID, userEmail, userName); err != nil {
			return Reply{}, err
		}
		t, err = s.Tickets.CreateAs(ctx, ticket.Actor{ID: UserID, Via: map[string]any{"integration": "chat",
			"team_id": c.TeamID, "channel_id": c.ChannelID, "chat_user_id": c.UserID, "chat_user_name": c.UserName}},
			sc.orgID, projectID, ticket.NewTicket{Content: ticket.Content{Title: title}})
	}
	if err != nil {
		if e := domain.AsError(err); e.Kind != domain.KindInternal {
			msg := e.Message
			if len(e.Details) > 0 {
				msg += ": " + strings.Join(e.Details, "; ")
			}
			return ephemeral("Could not create the ticket: " + msg), nil
		}
		return Reply{}, err
	}
	row := ticketdb.Row{ID: t.ID, OrgID: sc.orgID, TicketNumber: int32(t.TicketNumber), Content: t.Content, AssigneeID: t.AssigneeID}
	reply, err := s.ticketReply(ctx, row, strings.ToUpper(key), "Created ")
	if err != nil {
		return reply, err
	}
	if c.ChannelID != "" && channelPattern.MatchString(c.ChannelID) {
		job := FollowupJob{OrgID: sc.orgID, TicketID: t.ID, TeamID: c.TeamID, ChannelID: c.ChannelID, Text: reply.Text}
		if s.ResponseURLAllowed(c.ResponseURL) {
			job.ResponseURL = c.ResponseURL
		}
		if err := domain.Enqueue(ctx, q, sc.orgID, domain.NewID(), TopicCommandFollowup, job, s.now()); err != nil {
			return reply, err
		}
	}
	return reply, nil
}

// ticketReply renders a ticket as an in_channel answer: a section with the
// ref and title, fields with status, priority, assignee and a link (built
// with slack-go's Block Kit types; user text escaped).
func (s *Service) ticketReply(ctx context.Context, t ticketdb.Row, key, verb string) (Reply, error) {
	ref := ticket.FormatRef(key, int64(t.TicketNumber))
	assignee := "Unassigned"
	if t.AssigneeID != nil {
		n, err := chatdb.UserName(ctx, s.DB.Q(), *t.AssigneeID)
		if err != nil {
			return Reply{}, err
		}
		if n != "" {
			assignee = escape(bounded(n, 100))
		}
	}
	link := s.TicketURL(t.ID)
	title := escape(bounded(t.Title, 200))
	md := func(s string) *slack.TextBlockObject {
		return slack.NewTextBlockObject(slack.MarkdownType, s, false, false)
	}
	section := slack.NewSectionBlock(md(verb+"*"+ref+"* "+title),
		[]*slack.TextBlockObject{md("*Status*\n" + escape(t.Status)), md("*Priority*\n" + escape(t.Priority)),
			md("*Assignee*\n" + assignee), md("*Link*\n<" + link + "|Open " + ref + ">")}, nil)
	return Reply{ResponseType: slack.ResponseTypeInChannel, Text: verb + ref + " " + title, Blocks: []slack.Block{section}}, nil
}

// TicketURL is the service's URL of a ticket.
func (s *Service) TicketURL(id uuid.UUID) string {
	return strings.TrimRight(s.PublicURL, "/") + "/api/v1/tickets/" + id.String()
}

// SlackClient is slack-go's client for a bot token; apiURL, when set,
// replaces the Web API's base URL (tests, proxies).
func SlackClient(token, apiURL string) *slack.Client {
	var opts []slack.Option
	if apiURL != "" {
		if !strings.HasSuffix(apiURL, "/") {
			apiURL += "/"
		}
		opts = append(opts, slack.OptionAPIURL(apiURL))
	}
	return slack.New(token, opts...)
}

package notification

import (
	"context"
	"regexp"
	"slices"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/notificationdb"
)

// mentionRe finds the two spellings of a mention: <@user-uuid>, and
// @email (any case) not preceded by a word character, so that an address
// written out (ann@example.com) is not read as a mention of example.com.
var mentionRe = regexp.MustCompile(`<@([0-9a-fA-F-]{36})>|(?:^|[^\w.+-])@([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})`)

// ParseMentions reads the mentions of a text: the addresses and the user
// ids it names, each once.
func ParseMentions(text string) (emails []string, ids []uuid.UUID) {
	for _, m := range mentionRe.FindAllStringSubmatch(text, -1) {
		if m[1] != "" {
			if id, err := uuid.Parse(m[1]); err == nil && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
			continue
		}
		if !slices.Contains(emails, m[2]) {
			emails = append(emails, m[2])
		}
	}
	return emails, ids
}

// Mentioned resolves the mentions of text among the members of org who can
// read tickets of project: a mention of anyone else is dropped, so it
// notifies nobody and tells the writer nothing.
func Mentioned(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, text string) ([]uuid.UUID, error) {
	emails, ids := ParseMentions(text)
	if len(emails) == 0 && len(ids) == 0 {
		return nil, nil
	}
	out, err := notificationdb.Readers(ctx, q, orgID, projectID, ids)
	if err != nil {
		return nil, err
	}
	byEmail, err := notificationdb.ReadersByEmail(ctx, q, orgID, projectID, emails)
	if err != nil {
		return nil, err
	}
	for _, id := range byEmail {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// NewlyMentioned is Mentioned of after without those before already
// mentioned: an edit tells only the people it adds.
func NewlyMentioned(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, before, after string) ([]uuid.UUID, error) {
	now, err := Mentioned(ctx, q, orgID, projectID, after)
	if err != nil || len(now) == 0 {
		return now, err
	}
	was, err := Mentioned(ctx, q, orgID, projectID, before)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(now, func(id uuid.UUID) bool { return slices.Contains(was, id) }), nil
}

// Mention tells each of users that they were mentioned, and makes them
// watch the ticket.
func (e *Event) Mention(users []uuid.UUID) {
	for _, u := range users {
		e.Tell(u, TypeMentioned)
		e.Watch = append(e.Watch, u)
	}
}

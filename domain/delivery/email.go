package delivery

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"text/template"

	"github.com/google/uuid"

	"tracker/store/deliverydb"
)

// Email is one digest, ready for the mail server.
type Email struct {
	To   string `json:"to"`
	Name string `json:"name"`
	// Subject names the one notification, or how many there are.
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html"`
	// Unsubscribe is the one-click link (RFC 8058): a POST to it turns
	// email off; a GET shows a confirmation page.
	Unsubscribe string `json:"unsubscribe"`
	// MessageID is stable for the same notifications, so a digest sent
	// twice after a crash is one message to mail clients that dedupe.
	MessageID string `json:"message_id"`
}

// line is one notification as a digest shows it.
type line struct {
	Headline string // "Ada Lovelace mentioned you on ABC-12 Fix the login"
	Excerpt  string
	Link     string // the ticket's URL ("": none)
	Org      string
}

var headlines = map[string]string{
	"assigned":            "%s assigned you",
	"mentioned":           "%s mentioned you",
	"commented":           "%s commented",
	"replied":             "%s replied to your comment",
	"status_changed":      "%s changed the status",
	"due_soon":            "Due soon",
	"time_entry_approved": "%s approved your time entry",
	"time_entry_rejected": "%s sent your time entry back",
	"import_finished":     "Your import finished",
}

func headline(it deliverydb.Item) string {
	actor := "Someone"
	if it.ActorName != nil && *it.ActorName != "" {
		actor = *it.ActorName
	}
	f, ok := headlines[it.Type]
	if !ok {
		f = "%s: " + it.Type
	}
	h := f
	if strings.Contains(f, "%s") {
		h = fmt.Sprintf(f, actor)
	}
	if it.TicketKey != nil && it.TicketTitle != nil {
		h += " on " + *it.TicketKey + " " + *it.TicketTitle
	}
	return h
}

// TicketURL is where an email or a chat message links a ticket.
func TicketURL(publicURL string, id uuid.UUID) string {
	return strings.TrimRight(publicURL, "/") + "/api/v1/tickets/" + id.String()
}

var textTmpl = template.Must(template.New("text").Parse(`Hello {{.Name}},
{{range .Lines}}
* {{.Headline}} ({{.Org}})
{{- if .Excerpt}}
  "{{.Excerpt}}"
{{- end}}
{{- if .Link}}
  {{.Link}}
{{- end}}
{{end}}
--
You get these emails from Tracker. Turn them off: {{.Unsubscribe}}
Or change your notification settings: {{.Settings}}
`))

var htmlTmpl = htmltemplate.Must(htmltemplate.New("html").Parse(`<!DOCTYPE html>
<html><body style="font-family: sans-serif">
<p>Hello {{.Name}},</p>
<ul>
{{range .Lines}}<li><p>{{if .Link}}<a href="{{.Link}}">{{.Headline}}</a>{{else}}{{.Headline}}{{end}} <small>({{.Org}})</small></p>
{{if .Excerpt}}<blockquote>{{.Excerpt}}</blockquote>{{end}}</li>
{{end}}</ul>
<hr>
<p><small>You get these emails from Tracker. <a href="{{.Unsubscribe}}">Turn them off</a>.</small></p>
</body></html>
`))

// compose writes the digest of items for r.
func compose(r deliverydb.Recipient, items []deliverydb.Item, publicURL, unsubscribe, host string) (Email, error) {
	lines := make([]line, len(items))
	for i, it := range items {
		lines[i] = line{Headline: headline(it), Excerpt: it.Excerpt, Org: it.OrgName}
		if it.TicketID != nil {
			lines[i].Link = TicketURL(publicURL, *it.TicketID)
		}
	}
	data := map[string]any{"Name": r.DisplayName, "Lines": lines, "Unsubscribe": unsubscribe,
		"Settings": strings.TrimRight(publicURL, "/") + "/api/v1/me/notification-settings"}
	var text, html bytes.Buffer
	if err := textTmpl.Execute(&text, data); err != nil {
		return Email{}, err
	}
	if err := htmlTmpl.Execute(&html, data); err != nil {
		return Email{}, err
	}
	subject := lines[0].Headline
	if len(items) > 1 {
		subject = fmt.Sprintf("%d new notifications", len(items))
	}
	return Email{To: r.Email, Name: r.DisplayName, Subject: subject, Text: text.String(), HTML: html.String(),
		Unsubscribe: unsubscribe, MessageID: fmt.Sprintf("<notify.%s.%d@%s>", items[0].ID, len(items), host)}, nil
}

package deliveryact

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/wneessen/go-mail"

	"tracker/domain/delivery"
)

// Mailer sends one email.
type Mailer interface {
	Send(ctx context.Context, e delivery.Email) error
}

// RefusedError is a mail server's permanent refusal (5xx) of the
// recipient's address: no retry delivers to it.
type RefusedError struct{ Answer string }

func (e *RefusedError) Error() string { return "recipient refused: " + e.Answer }

// SMTP sends through one mail server with go-mail, a connection per email.
type SMTP struct {
	host string
	from string
	opts []mail.Option
}

// NewSMTP reads SERVICE_SMTP_URL's value: smtp://[user:pass@]host[:port]
// (default port 587) speaks STARTTLS, required unless the host is a
// loopback address (a local mail catcher) or ?tls=opportunistic or
// ?tls=none says otherwise; smtps://host[:port] (default 465) is TLS from
// the first byte. With a user, it authenticates with the best mechanism
// the server offers. from is the sender's address.
func NewSMTP(rawURL, from string) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("SMTP URL: %w", err)
	}
	if from == "" {
		return nil, errors.New("SMTP: a sender address (SERVICE_SMTP_FROM) is required")
	}
	if err := mail.NewMsg().From(from); err != nil {
		return nil, fmt.Errorf("SMTP sender address: %w", err)
	}
	host := u.Hostname()
	if host == "" {
		return nil, errors.New("SMTP URL: no host")
	}
	opts := []mail.Option{mail.WithTimeout(30 * time.Second)}
	port := 587
	switch u.Scheme {
	case "smtp":
		policy := mail.TLSMandatory
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			policy = mail.TLSOpportunistic
		}
		switch u.Query().Get("tls") {
		case "opportunistic":
			policy = mail.TLSOpportunistic
		case "none":
			policy = mail.NoTLS
		case "", "mandatory":
		default:
			return nil, errors.New("SMTP URL: tls must be mandatory, opportunistic or none")
		}
		opts = append(opts, mail.WithTLSPolicy(policy))
	case "smtps":
		port = 465
		opts = append(opts, mail.WithSSL())
	default:
		return nil, errors.New("SMTP URL: the scheme must be smtp or smtps")
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, errors.New("SMTP URL: bad port")
		}
	}
	opts = append(opts, mail.WithPort(port))
	if u.User != nil && u.User.Username() != "" {
		pass, _ := u.User.Password()
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(u.User.Username()),
			mail.WithPassword(pass))
	}
	return &SMTP{host: host, from: from, opts: opts}, nil
}

// Send sends e as a multipart/alternative message (plain text, then HTML)
// with the one-click unsubscribe headers of RFC 8058. A 5xx refusal of the
// recipient is a *RefusedError; anything else (a 4xx, a 5xx to the sender
// or the data, a network error) is an error to retry.
func (s *SMTP) Send(ctx context.Context, e delivery.Email) error {
	m := mail.NewMsg()
	if err := m.From(s.from); err != nil {
		return &RefusedError{Answer: "bad sender address: " + err.Error()}
	}
	if err := m.AddToFormat(e.Name, e.To); err != nil {
		return &RefusedError{Answer: "bad address: " + err.Error()}
	}
	m.Subject(e.Subject)
	m.SetMessageIDWithValue(trimAngles(e.MessageID))
	m.SetDate()
	// Not SetListUnsubscribeOneClick: it takes https links only, and a
	// local setup's public URL is http.
	m.SetListUnsubscribe(e.Unsubscribe)
	m.SetListUnsubscribePost()
	m.SetGenHeader("Auto-Submitted", "auto-generated")
	m.SetBodyString(mail.TypeTextPlain, e.Text)
	m.AddAlternativeString(mail.TypeTextHTML, e.HTML)
	c, err := mail.NewClient(s.host, s.opts...)
	if err != nil {
		return err
	}
	err = c.DialAndSendWithContext(ctx, m)
	var se *mail.SendError
	if errors.As(err, &se) && se.Reason == mail.ErrSMTPRcptTo && !se.IsTemp() && se.ErrorCode() >= 500 {
		return &RefusedError{Answer: se.Error()}
	}
	return err
}

func trimAngles(id string) string {
	if len(id) > 1 && id[0] == '<' && id[len(id)-1] == '>' {
		return id[1 : len(id)-1]
	}
	return id
}

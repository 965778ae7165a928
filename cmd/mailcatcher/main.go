// Command mailcatcher is the local mail server of `make run`: it accepts
// every email on an SMTP port (go-smtp; no TLS, no auth, loopback only by
// default) and shows them on a web page, so notification emails can be
// read without a real mail account. It keeps the newest 500 in memory.
//
//	mailcatcher -smtp 127.0.0.1:1025 -http 127.0.0.1:8025
package main

import (
	"bytes"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

const keep = 500

type message struct {
	ID         int
	At         time.Time
	From       string
	To         []string
	Subject    string
	Text, HTML string
	Headers    mail.Header
}

type box struct {
	mu   sync.Mutex
	next int
	msgs []*message // newest last
}

func (b *box) add(m *message) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	m.ID = b.next
	b.msgs = append(b.msgs, m)
	if len(b.msgs) > keep {
		b.msgs = b.msgs[len(b.msgs)-keep:]
	}
}

func (b *box) list() []*message {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*message, len(b.msgs))
	for i, m := range b.msgs {
		out[len(b.msgs)-1-i] = m
	}
	return out
}

func (b *box) get(id int) *message {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.msgs {
		if m.ID == id {
			return m
		}
	}
	return nil
}

func main() {
	smtpAddr := flag.String("smtp", "127.0.0.1:1025", "SMTP listen address")
	httpAddr := flag.String("http", "127.0.0.1:8025", "web page listen address")
	flag.Parse()
	b := &box{}
	s := smtp.NewServer(backend{b})
	s.Addr, s.Domain = *smtpAddr, "localhost"
	s.ReadTimeout, s.WriteTimeout, s.MaxMessageBytes = time.Minute, time.Minute, 10<<20
	go func() { log.Fatal(s.ListenAndServe()) }()
	log.Printf("mailcatcher: SMTP on %s, web page on http://%s/", *smtpAddr, *httpAddr)
	srv := &http.Server{Addr: *httpAddr, Handler: pages(b), ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// pages serves the list of caught emails and each email.
func pages(b *box) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { render(w, listPage, b.list()) })
	mux.HandleFunc("GET /messages/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.PathValue("id"))
		m := b.get(id)
		if m == nil {
			http.NotFound(w, r)
			return
		}
		render(w, messagePage, m)
	})
	return mux
}

func render(w http.ResponseWriter, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := t.Execute(w, data); err != nil {
		log.Print(err)
	}
}

var listPage = template.Must(template.New("list").Parse(`<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="refresh" content="5"><title>Mail catcher</title></head><body style="font-family: sans-serif">
<h1>Caught emails</h1>
<table cellpadding="4"><tr><th>received</th><th>to</th><th>subject</th></tr>
{{range .}}<tr><td>{{.At.Format "15:04:05"}}</td><td>{{range .To}}{{.}} {{end}}</td>
<td><a href="/messages/{{.ID}}">{{.Subject}}</a></td></tr>
{{else}}<tr><td colspan="3">none yet</td></tr>{{end}}</table></body></html>`))

var messagePage = template.Must(template.New("message").Parse(`<!DOCTYPE html><html><head><meta charset="utf-8">
<title>{{.Subject}}</title></head><body style="font-family: sans-serif">
<p><a href="/">all emails</a></p>
<h2>{{.Subject}}</h2>
<table>{{range $k, $v := .Headers}}<tr><td><b>{{$k}}</b></td><td>{{range $v}}{{.}} {{end}}</td></tr>{{end}}</table>
{{if .HTML}}<h3>HTML part</h3>
<iframe sandbox="" srcdoc="{{.HTML}}" style="width: 100%; height: 30em; border: 1px solid #ccc"></iframe>{{end}}
<h3>Plain-text part</h3><pre>{{.Text}}</pre></body></html>`))

type backend struct{ b *box }

func (be backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{b: be.b}, nil }

type session struct {
	b    *box
	from string
	to   []string
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := &message{At: time.Now(), From: s.from, To: s.to}
	if err := parse(raw, m); err != nil {
		m.Subject, m.Text = "(unreadable: "+err.Error()+")", string(raw)
	}
	s.b.add(m)
	return nil
}

func parse(raw []byte, m *message) error {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	m.Headers = msg.Header
	if m.Subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil {
		m.Subject = msg.Header.Get("Subject")
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mt, "multipart/") {
		b, err := io.ReadAll(msg.Body)
		m.Text = string(b)
		return err
	}
	return parts(multipart.NewReader(msg.Body, params["boundary"]), m)
}

func parts(mr *multipart.Reader, m *message) error {
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		ct, params, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if strings.HasPrefix(ct, "multipart/") {
			if err := parts(multipart.NewReader(p, params["boundary"]), m); err != nil {
				return err
			}
			continue
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return err
		}
		switch ct {
		case "text/plain":
			m.Text = string(b)
		case "text/html":
			m.HTML = string(b)
		default:
			m.Text += fmt.Sprintf("\n[%s part, %d bytes]", ct, len(b))
		}
	}
}

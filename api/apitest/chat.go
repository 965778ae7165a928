package apitest

import (
	"strings"

	"github.com/google/uuid"

	"tracker/domain/chat/chattest"
)

// InstallChat connects chat workspace team to orgID the one way there is:
// admin starts the chat app's install, the stand-in plays the chat
// service's authorize page (the admin's browser choosing team), and the
// browser lands on the service's callback, whose answer is returned (201:
// connected); the chat account approving has admin's email. The chat module must be mounted with sa's URL and
// chattest.ClientID/ClientSecret.
func (e *Env) InstallChat(sa *chattest.SlackAPI, admin User, orgID uuid.UUID, team string) Resp {
	e.T.Helper()
	var start struct {
		AuthorizeURL string `json:"authorize_url"`
	}
	e.Do("POST", "/api/v1/orgs/"+orgID.String()+"/integrations/chat/install", admin.Token, nil).Expect(e.T, 200).Decode(e.T, &start)
	installer := "U" + strings.ToUpper(strings.ReplaceAll(admin.ID.String(), "-", ""))[:20]
	back := sa.Authorize(e.T, start.AuthorizeURL, team, sa.AsInstaller(installer, admin.Email))
	return e.Do("GET", back.RequestURI(), "", nil)
}

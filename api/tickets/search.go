package tickets

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/search"
	"tracker/internal/searchquery"
)

// SearchRequest reads q, limit, cursor and count.
func SearchRequest(c *fiber.Ctx) (search.Request, error) {
	r := search.Request{Q: c.Query("q"), Cursor: c.Query("cursor"), Limit: domain.DefaultPageLimit}
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return r, domain.Invalid("limit: must be an integer")
		}
		if n < 1 {
			return r, domain.Invalid("limit: must be at least 1")
		}
		r.Limit = min(n, domain.MaxPageLimit)
	}
	var err error
	r.Count, err = api.QueryBool(c, "count")
	return r, err
}

// searchProject is the project list with q (or count): the legacy status,
// priority and assignee_id parameters still narrow it.
func (h Handlers) searchProject(c *fiber.Ctx, projectID uuid.UUID) error {
	r, err := SearchRequest(c)
	if err != nil {
		return err
	}
	if st := c.Query("status"); st != "" {
		r.Extra = append(r.Extra, searchquery.Term{Field: searchquery.FieldStatus, Value: st})
	}
	if pr := c.Query("priority"); pr != "" {
		t, err := searchquery.Parse("priority:" + strconv.Quote(pr))
		term, ok := t.Root.(searchquery.Term)
		if err != nil || !ok {
			return domain.Invalid("priority: must be one of None, Low, Medium, High, Critical")
		}
		r.Extra = append(r.Extra, term)
	}
	if r.AssigneeID, err = api.QueryID(c, "assignee_id"); err != nil {
		return err
	}
	res, err := h.search.Project(c.UserContext(), api.Principal(c), projectID, r)
	if err != nil {
		return err
	}
	return SendResult(c, res)
}

// searchOrg is GET /orgs/:org_id/tickets: every ticket of the org the caller
// may see, narrowed by q.
func (h Handlers) searchOrg(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	r, err := SearchRequest(c)
	if err != nil {
		return err
	}
	res, err := h.search.Org(c.UserContext(), api.Principal(c), orgID, r)
	if err != nil {
		return err
	}
	return SendResult(c, res)
}

// SendResult writes a search page in the list envelope, with total and
// total_capped when the total was asked for.
func SendResult(c *fiber.Ctx, res search.Result) error { return sendResultWith(c, res, "") }

// sendResultWith is sendResult with more members (a JSON fragment starting
// with a comma) at the end of the object.
func sendResultWith(c *fiber.Ctx, res search.Result, more string) error {
	b := make([]byte, 0, 96+len(res.Items)*480)
	b = append(b, `{"items":[`...)
	for i, t := range res.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.AppendJSON(b)
	}
	b = append(b, `],"next_cursor":`...)
	if res.NextCursor == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, *res.NextCursor) // base64url: nothing to escape
	}
	b = append(b, `,"has_more":`...)
	b = strconv.AppendBool(b, res.NextCursor != nil)
	if res.Total != nil {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, int64(*res.Total), 10)
		b = append(b, `,"total_capped":`...)
		b = strconv.AppendBool(b, res.TotalCapped)
	}
	b = append(b, more...)
	b = append(b, '}')
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}

// children is GET /tickets/:id/children: the children page (q narrows it)
// with the parent's progress.
func (h Handlers) children(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	r, err := SearchRequest(c)
	if err != nil {
		return err
	}
	res, pr, err := h.search.Children(c.UserContext(), api.Principal(c), id, r)
	if err != nil {
		return err
	}
	b, err := json.Marshal(pr)
	if err != nil {
		return err
	}
	return sendResultWith(c, res, `,"progress":`+string(b))
}

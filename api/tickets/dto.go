package tickets

import (
	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/domain/ticket"
)

// createReq and patchReq embed the ticket's own values (ticket.Content),
// which decode under their json keys as they render.
type createReq struct {
	ticket.Content
	AssigneeID   *string            `json:"assignee_id"`
	ParentID     *string            `json:"parent_id"`
	CustomFields customfield.Values `json:"custom_fields"`
	// reporter_id is deprecated and ignored: the reporter is the caller.
}

func (r createReq) toDomain() (ticket.NewTicket, error) {
	out := ticket.NewTicket{Content: r.Content, CustomFields: r.CustomFields}
	if r.Title == "" {
		var p domain.Problems
		p.Add("title", "required")
		return out, p.Err()
	}
	if r.AssigneeID != nil {
		id, err := uuid.Parse(*r.AssigneeID)
		if err != nil {
			return out, domain.Invalid("assignee_id: must be a UUID")
		}
		out.AssigneeID = &id
	}
	if r.ParentID != nil {
		tg, err := ticket.ParseTarget("parent_id", *r.ParentID)
		if err != nil {
			return out, err
		}
		if out.ParentRef = tg.Ref; tg.Ref == "" {
			out.ParentID = &tg.ID
		}
	}
	return out, nil
}

// patchReq carries every field a PATCH or a batch update may set; absent,
// null and value are told apart (of Content, by the body's keys).
type patchReq struct {
	ticket.Content
	AssigneeID   domain.Opt[string] `json:"assignee_id"`
	ParentID     domain.Opt[string] `json:"parent_id"`
	CustomFields customfield.Values `json:"custom_fields"`
}

func (r patchReq) toDomain(body []byte) (ticket.Patch, error) {
	out := ticket.Patch{Content: domain.PatchOf(body, r.Content), CustomFields: r.CustomFields}
	var err error
	if out.AssigneeID, err = optID("assignee_id", r.AssigneeID); err != nil {
		return out, err
	}
	out.ParentID = domain.Opt[uuid.UUID]{Set: r.ParentID.Set, Null: r.ParentID.Null}
	if r.ParentID.Set && !r.ParentID.Null {
		tg, err := ticket.ParseTarget("parent_id", r.ParentID.Value)
		if err != nil {
			return out, err
		}
		out.ParentID.Value, out.ParentRef = tg.ID, tg.Ref
	}
	return out, nil
}

// optID parses an optional, nullable UUID field.
func optID(field string, o domain.Opt[string]) (domain.Opt[uuid.UUID], error) {
	out := domain.Opt[uuid.UUID]{Set: o.Set, Null: o.Null}
	if o.Set && !o.Null {
		id, err := uuid.Parse(o.Value)
		if err != nil {
			return out, domain.Invalid(field + ": must be a UUID")
		}
		out.Value = id
	}
	return out, nil
}

type batchUpdateReq struct {
	TicketIDs []string `json:"ticket_ids"`
	patchReq
	SprintID domain.Opt[string] `json:"sprint_id"`
}

type batchDeleteReq struct {
	TicketIDs []string `json:"ticket_ids"`
	Cascade   bool     `json:"cascade"`
	DryRun    bool     `json:"dry_run"`
}

type transitionReq struct {
	ToStatus string `json:"to_status" validate:"required"`
}

type batchTransitionReq struct {
	TicketIDs []string `json:"ticket_ids"`
	ToStatus  string   `json:"to_status" validate:"required"`
}

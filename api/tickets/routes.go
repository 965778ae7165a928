// Package tickets serves tickets: CRUD, resolve, workflow transitions, the
// batch operations and the activity feed.
package tickets

import (
	"tracker/api"
	"tracker/domain/search"
	"tracker/domain/ticket"
)

// Handlers serve the ticket routes.
type Handlers struct {
	tickets *ticket.Service
	search  *search.Service // runs ?q= queries
}

// New builds the handlers with every dependency they need.
func New(tickets *ticket.Service, searches *search.Service) Handlers {
	return Handlers{tickets: tickets, search: searches}
}

// Routes registers the ticket routes. The fixed paths (/tickets/resolve,
// /tickets/batch-*) come before /tickets/:id so they are not read as ids.
func (h Handlers) Routes(r api.Router) {
	r.Post("/projects/:project_id/tickets", h.create)
	r.Get("/projects/:project_id/tickets", h.list)
	r.Get("/orgs/:org_id/tickets", h.searchOrg)
	r.Get("/tickets/resolve", h.resolve)
	r.Post("/tickets/batch-update", h.batchUpdate)
	r.Post("/tickets/batch-delete", h.batchDelete)
	r.Post("/tickets/batch-transition", h.batchTransition)
	r.Get("/tickets/:id", h.get)
	r.Patch("/tickets/:id", api.IfMatch, h.update)
	r.Delete("/tickets/:id", api.IfMatch, api.CascadeDelete("ticket", h.tickets.Delete))
	r.Post("/tickets/:id/transition", h.transition)
	r.Get("/tickets/:id/transitions", api.ByID("ticket", h.tickets.Transitions))
	r.Get("/tickets/:id/available-transitions", h.available)
	r.Get("/tickets/:ticket_id/activity", h.activity)
	r.Get("/tickets/:id/children", h.children)
	r.Post("/tickets/:id/links", h.addLink)
	r.Get("/tickets/:id/links", h.links)
	r.Delete("/tickets/:id/links/:link_id", h.removeLink)
}

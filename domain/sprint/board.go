package sprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/sprintdb"
)

// categoryDone is the workflow status category of finished work.
const categoryDone = "done"

// Board is the API's Sprint board.
type Board struct {
	Sprint  Sprint   `json:"sprint"`
	Columns []Column `json:"columns"`
	// The estimates of the board's tickets (one without counts 0): all,
	// those in a done status, the rest.
	TotalEstimate     civil.Decimal `json:"total_estimate"`
	CompletedEstimate civil.Decimal `json:"completed_estimate"`
	RemainingEstimate civil.Decimal `json:"remaining_estimate"`
}

// Column is one status of the board with its tickets.
type Column struct {
	Status  string   `json:"status"`
	Tickets []Ticket `json:"tickets"`
	// TotalEstimate sums the column's tickets' estimates.
	TotalEstimate civil.Decimal `json:"total_estimate"`
}

type status struct {
	Name     string `json:"name"`
	Category string `json:"category"`
}

// workflowStatuses reads the statuses of the project's workflow (its own,
// else the org's Default), in workflow order; none when there is no workflow.
func workflowStatuses(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID) ([]status, error) {
	raw, err := sprintdb.Statuses(ctx, q, orgID, projectID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []status
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode workflow statuses: %w", err)
	}
	return out, nil
}

// Board shows a sprint's tickets in one column per status of the project's
// workflow, in workflow order, empty columns included. Tickets whose status
// the workflow does not know get columns of their own after those.
func (s *Service) Board(ctx context.Context, p domain.Principal, id uuid.UUID) (Board, error) {
	return s.BoardQ(ctx, p, id, "")
}

// MaxBoardQ is the most tickets a board narrowed by q shows.
const MaxBoardQ = 5000

// BoardQ is Board narrowed to the tickets matching the search query q (the
// language of domain/search; "" shows every ticket; empty columns stay).
func (s *Service) BoardQ(ctx context.Context, p domain.Principal, id uuid.UUID, qs string) (Board, error) {
	if _, err := search.Parse(qs); err != nil {
		return Board{}, err
	}
	q := s.DB.Q()
	sp, err := load(ctx, q, p, id, domain.RoleViewer, sprintdb.NoLock)
	if err != nil {
		return Board{}, err
	}
	statuses, err := workflowStatuses(ctx, q, sp.OrgID, sp.ProjectID)
	if err != nil {
		return Board{}, err
	}
	var tickets []sprintdb.Ticket
	if qs == "" {
		tickets, err = sprintdb.SprintTickets(ctx, q, sp.OrgID, id)
	} else {
		tickets, err = search.New(s.DB, s.clock).SprintTickets(ctx, p, sp.OrgID, sp.ProjectID, id, qs, MaxBoardQ)
	}
	if err != nil {
		return Board{}, err
	}
	cols := make([]Column, 0, len(statuses))
	index := make(map[string]int, len(statuses))
	add := func(name string) int {
		if i, ok := index[name]; ok {
			return i
		}
		index[name] = len(cols)
		cols = append(cols, Column{Status: name, Tickets: []Ticket{}})
		return index[name]
	}
	for _, st := range statuses {
		add(st.Name)
	}
	b := Board{Sprint: toSprint(sp)}
	done := map[string]bool{}
	for _, st := range statuses {
		done[st.Name] = st.Category == categoryDone
	}
	if len(statuses) == 0 {
		done["Done"] = true // no workflow at all: the default name of finished work
	}
	rendered, err := ticket.Render(ctx, q, sp.OrgID, tickets...)
	if err != nil {
		return Board{}, err
	}
	for j, t := range tickets {
		i := add(t.Status)
		cols[i].Tickets = append(cols[i].Tickets, rendered[j])
		e := estimateOf(t)
		cols[i].TotalEstimate += e
		b.TotalEstimate += e
		if done[t.Status] {
			b.CompletedEstimate += e
		}
	}
	b.Columns, b.RemainingEstimate = cols, b.TotalEstimate-b.CompletedEstimate
	return b, nil
}

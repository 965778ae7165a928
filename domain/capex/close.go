package capex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// Period states.
const (
	PeriodOpen   = "Open"
	PeriodClosed = "Closed"
	// PeriodPending is a month whose close waits for a second approver.
	PeriodPending = "PendingApproval"
)

// MaxReasonLen bounds a reopen reason.
const MaxReasonLen = 2000

// CloseInfo is one close of a month as the API renders it. ClosedBy is null
// when the monthly Schedule closed it; SHA256 is the hex SHA-256 of the
// month's capitalization CSV as stored at close. Status is closed, or under
// the four-eyes close pending_approval until a second person approves it
// (closed, with ApprovedBy) or rejects it (rejected, with RejectedBy).
type CloseInfo struct {
	Status       string     `json:"status"`
	RequestedBy  *uuid.UUID `json:"requested_by,omitempty"`
	ApprovedBy   *uuid.UUID `json:"approved_by,omitempty"`
	ApprovedAt   *time.Time `json:"approved_at,omitempty"`
	RejectedBy   *uuid.UUID `json:"rejected_by,omitempty"`
	RejectedAt   *time.Time `json:"rejected_at,omitempty"`
	RejectReason *string    `json:"reject_reason,omitempty"`
	ID           uuid.UUID  `json:"id"`
	Period       string     `json:"period"`
	ClosedBy     *uuid.UUID `json:"closed_by"`
	ClosedAt     time.Time  `json:"closed_at"`
	SHA256       string     `json:"sha256"`
	Entries      int64      `json:"entries"`
	ReopenedBy   *uuid.UUID `json:"reopened_by,omitempty"`
	ReopenedAt   *time.Time `json:"reopened_at,omitempty"`
	ReopenReason *string    `json:"reopen_reason,omitempty"`
}

func toCloseInfo(c capexdb.Close) CloseInfo {
	out := CloseInfo{ID: c.ID, Period: c.Period, ClosedBy: c.ClosedBy, ClosedAt: c.ClosedAt.UTC(), SHA256: c.SHA256,
		Entries: c.Entries, ReopenedBy: c.ReopenedBy, ReopenReason: c.ReopenReason}
	if c.ReopenedAt != nil {
		t := c.ReopenedAt.UTC()
		out.ReopenedAt = &t
	}
	out.Status = c.Status
	if out.Status == "" {
		out.Status = capexdb.StatusClosed
	}
	if c.Status == capexdb.StatusPending || c.ApprovedBy != nil || c.Status == capexdb.StatusRejected {
		out.RequestedBy = c.ClosedBy
	}
	if c.ApprovedAt != nil {
		t := c.ApprovedAt.UTC()
		out.ApprovedBy, out.ApprovedAt = c.ApprovedBy, &t
	}
	if c.Status == capexdb.StatusRejected {
		out.RejectedBy, out.RejectedAt, out.RejectReason = out.ReopenedBy, out.ReopenedAt, out.ReopenReason
		out.ReopenedBy, out.ReopenedAt, out.ReopenReason = nil, nil, nil
	}
	return out
}

// snapshot is the document stored with a close: everything the report and
// the CSV read besides the priced entries, frozen at close.
type snapshot struct {
	Period string `json:"period"`
	capexdb.Frozen
	Spent       map[uuid.UUID]int64               `json:"spent"`
	ProjectTags map[uuid.UUID][]capexdb.EntityTag `json:"project_tags"`
	Departments map[uuid.UUID]string              `json:"departments"`
	// Policy is the capitalization policy in force at close (absent: none
	// was, or the month closed before policies existed); with the projects'
	// frozen facts it fixes every entry's classification.
	Policy *PolicyRef `json:"policy,omitempty"`
	// RequestedBy is who closed the month (absent: the Schedule); under the
	// four-eyes close ApprovedBy and ApprovedAt name the second person.
	RequestedBy *uuid.UUID `json:"requested_by,omitempty"`
	ApprovedBy  *uuid.UUID `json:"approved_by,omitempty"`
	ApprovedAt  *time.Time `json:"approved_at,omitempty"`
}

// Close freezes orgID's month (Owner or Admin): the approved entries are
// priced and copied, the project and user columns, budget spend and tags
// read for the CSV are stored with the CSV and its SHA-256, and from then on
// no entry or rate dated in the month can change. Only a month that has
// ended can be closed; closing a closed month is a 409. When the org
// requires a second approver the close is pending_approval (the month
// already refuses writes) until Approve or Reject.
func (s *Service) Close(ctx context.Context, p domain.Principal, orgID uuid.UUID, period string) (CloseInfo, error) {
	per, err := ParsePeriod("period", period)
	if err != nil {
		return CloseInfo{}, err
	}
	var out CloseInfo
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
			return err
		}
		if per.End().After(s.now()) {
			return domain.Invalid("period: only a month that has ended can be closed")
		}
		status, action, err := closeStatus(ctx, q, orgID)
		if err != nil {
			return err
		}
		c, err := s.closeTx(ctx, q, orgID, per, &p.UserID, status)
		if err != nil {
			return err
		}
		out = toCloseInfo(c)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "period",
			EntityID: c.ID, Action: action, Data: out})
	})
	return out, err
}

// closeTx takes the month's exclusive lock and writes the close with
// status (closed, or pending_approval); by is nil for the Schedule.
func (s *Service) closeTx(ctx context.Context, q store.Querier, orgID uuid.UUID, per Period, by *uuid.UUID, status string) (capexdb.Close, error) {
	if err := capexdb.Lock(ctx, q, orgID, per.String(), true); err != nil {
		return capexdb.Close{}, err
	}
	if cur, err := capexdb.InForce(ctx, q, orgID, per.String()); err == nil {
		if cur.Status == capexdb.StatusPending {
			return capexdb.Close{}, domain.Conflict("period "+per.String()+" already has a close pending approval: approve or reject it",
				"period: "+per.String(), "status: "+cur.Status)
		}
		return capexdb.Close{}, domain.Conflict("period "+per.String()+" is already closed",
			"period: "+per.String(), "closed_at: "+cur.ClosedAt.UTC().Format(time.RFC3339))
	} else if !errors.Is(err, store.ErrNotFound) {
		return capexdb.Close{}, err
	}
	c := capexdb.NewClose(domain.NewID(), orgID, per.String(), by, s.now(), status)
	n, err := capexdb.SnapshotEntries(ctx, q, c.ID, orgID, per.Start(), per.End())
	if err != nil {
		return c, err
	}
	c.Entries = n
	doc := snapshot{Period: per.String(), RequestedBy: by}
	if doc.Frozen, err = capexdb.FreezeColumns(ctx, q, c.ID, orgID); err != nil {
		return c, err
	}
	if doc.Policy, err = policyInForce(ctx, q, orgID, per, s.now()); err != nil {
		return c, err
	}
	qr := Query{OrgID: orgID, Period: per}
	cl := closed{info: c, doc: doc}
	lines, err := cl.classified(ctx, q, filterOf(qr), capexdb.Grouping{Full: true}, doc.Policy)
	if err != nil {
		return c, err
	}
	x, err := rollup.csvExtras(ctx, q, qr, lines)
	if err != nil {
		return c, err
	}
	doc.Spent, doc.ProjectTags, doc.Departments = x.Spent, x.ProjectTags, x.Departments
	data, err := WriteCSV(per, lines, x)
	if err != nil {
		return c, err
	}
	sum := sha256.Sum256(data)
	c.SHA256 = hex.EncodeToString(sum[:])
	js, err := json.Marshal(doc)
	if err != nil {
		return c, err
	}
	return c, capexdb.Insert(ctx, q, c, js, data)
}

// Reopen lifts the close of orgID's month (Owner only) with a required
// reason, recorded in the audit log and on the close. The close's CSV and
// checksum stay on record; closing again takes a new snapshot.
func (s *Service) Reopen(ctx context.Context, p domain.Principal, orgID uuid.UUID, period, reason string) (CloseInfo, error) {
	per, err := ParsePeriod("period", period)
	if err != nil {
		return CloseInfo{}, err
	}
	var out CloseInfo
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleOwner, "organization"); err != nil {
			return err
		}
		reason = strings.TrimSpace(reason)
		if reason == "" {
			return domain.Invalid("reason: required")
		}
		if len(reason) > MaxReasonLen {
			return domain.Invalid("reason: at most 2000 characters")
		}
		if err := capexdb.Lock(ctx, q, orgID, per.String(), true); err != nil {
			return err
		}
		c, err := capexdb.InForce(ctx, q, orgID, per.String())
		if errors.Is(err, store.ErrNotFound) {
			return domain.Conflict("period "+per.String()+" is not closed", "period: "+per.String())
		}
		if err != nil {
			return err
		}
		if c.Status == capexdb.StatusPending {
			return domain.Conflict("period "+per.String()+" has a close pending approval: reject it instead",
				"period: "+per.String(), "status: "+c.Status)
		}
		now := s.now()
		if err := capexdb.Reopen(ctx, q, c.ID, p.UserID, reason, now); err != nil {
			return err
		}
		c.ReopenedBy, c.ReopenedAt, c.ReopenReason = &p.UserID, &now, &reason
		out = toCloseInfo(c)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "period",
			EntityID: c.ID, Action: "reopened", Changes: []domain.FieldChange{{Field: "status", Old: PeriodClosed, New: PeriodOpen},
				{Field: "reason", Old: nil, New: reason}}, Data: out})
	})
	return out, err
}

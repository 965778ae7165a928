package sso

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/account"
	"tracker/store"
	"tracker/store/ssodb"
)

// An org proves it controls an email domain with a DNS TXT record: the
// record ChallengePrefix+<domain> holding ChallengeValuePrefix+<challenge>.
// Its identity provider may then link existing accounts of that domain.
const (
	ChallengePrefix      = "_tracker-challenge."
	ChallengeValuePrefix = "tracker-domain-verification="
	// MaxDomains bounds an org's domains.
	MaxDomains = 50
	// lookupTimeout bounds one verification's DNS lookup.
	lookupTimeout = 10 * time.Second
)

// Resolver looks up TXT records: a *net.Resolver.
type Resolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// DNSResolver is the resolver verifications use: the system's, or when addr
// (host:port, SERVICE_DNS_RESOLVER) is set, the DNS server there.
func DNSResolver(addr string) *net.Resolver {
	if addr == "" {
		return net.DefaultResolver
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
}

// Domain is the API's view of an org's email domain.
type Domain struct {
	Domain     string     `json:"domain"`
	Status     string     `json:"status"` // pending, verified
	RecordName string     `json:"txt_record_name"`
	RecordText string     `json:"txt_record_value"`
	CreatedAt  time.Time  `json:"created_at"`
	VerifiedAt *time.Time `json:"verified_at"`
}

func toDomain(d ssodb.Domain) Domain {
	out := Domain{Domain: d.Domain, Status: "pending", RecordName: ChallengePrefix + d.Domain,
		RecordText: ChallengeValuePrefix + d.Challenge, CreatedAt: d.CreatedAt.UTC()}
	if d.VerifiedAt != nil {
		at := d.VerifiedAt.UTC()
		out.Status, out.VerifiedAt = "verified", &at
	}
	return out
}

// ValidDomain reports whether d is a lower-case DNS name of at least two
// labels (letters, digits and inner hyphens; internationalized names in
// their xn-- form), not an IP address.
func ValidDomain(d string) bool {
	if len(d) > 253 {
		return false
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	return strings.ContainsFunc(tld, func(r rune) bool { return r < '0' || r > '9' })
}

// domainName reads a domain from the request: case is ignored.
func domainName(field, d string) (string, error) {
	d = strings.ToLower(d)
	if !ValidDomain(d) {
		return "", domain.Invalid(field + ": must be a domain name such as example.com")
	}
	return d, nil
}

func (s *Service) domainAccess(ctx context.Context, q store.Querier, p domain.Principal, orgID uuid.UUID) error {
	_, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization")
	return err
}

// AddDomain records an email domain for the org to verify (Admin): 201 with
// the TXT record to publish. A domain the org has → 409; more than
// MaxDomains → 422.
func (s *Service) AddDomain(ctx context.Context, p domain.Principal, orgID uuid.UUID, name string) (Domain, error) {
	var out Domain
	err := s.db.InTx(ctx, func(q store.Querier) error {
		// Access first: a non-member learns nothing, not even what is invalid.
		if err := s.domainAccess(ctx, q, p, orgID); err != nil {
			return err
		}
		d, err := domainName("domain", name)
		if err != nil {
			return err
		}
		n, err := ssodb.CountDomains(ctx, q, orgID)
		if err != nil {
			return err
		}
		if n >= MaxDomains {
			return domain.Invalidf("domain: an organization has at most %d domains; delete one first", MaxDomains)
		}
		row := ssodb.Domain{OrgID: orgID, Domain: d, Challenge: account.NewSecret(24), CreatedBy: &p.UserID, CreatedAt: s.clock.Now()}
		if err := ssodb.InsertDomain(ctx, q, row); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return domain.Conflict("the organization already has this domain", "domain: "+d)
			}
			return err
		}
		out = toDomain(row)
		return domain.Record(ctx, q, domain.Change{At: row.CreatedAt, OrgID: orgID, ActorID: &p.UserID, EntityType: "sso_domain",
			EntityID: orgID, Action: "created", Changes: []domain.FieldChange{{Field: "domain", New: d}}})
	})
	return out, err
}

// Domains lists the org's domains (Admin).
func (s *Service) Domains(ctx context.Context, p domain.Principal, orgID uuid.UUID) ([]Domain, error) {
	q := s.db.Q()
	if err := s.domainAccess(ctx, q, p, orgID); err != nil {
		return nil, err
	}
	rows, err := ssodb.Domains(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	out := make([]Domain, len(rows))
	for i, r := range rows {
		out[i] = toDomain(r)
	}
	return out, nil
}

// DeleteDomain removes a domain (Admin): its accounts are no longer linked
// by email; identities already linked stay.
func (s *Service) DeleteDomain(ctx context.Context, p domain.Principal, orgID uuid.UUID, name string) error {
	return s.db.InTx(ctx, func(q store.Querier) error {
		if err := s.domainAccess(ctx, q, p, orgID); err != nil {
			return err
		}
		d := strings.ToLower(name)
		n, err := ssodb.DeleteDomain(ctx, q, orgID, d)
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.NotFound("domain")
		}
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "sso_domain",
			EntityID: orgID, Action: "deleted", Changes: []domain.FieldChange{{Field: "domain", Old: d}}})
	})
}

// VerifyDomain looks the domain's TXT record up and, when it holds the
// challenge, marks the domain verified (Admin). No such record → 422 naming
// the record to publish; a DNS failure → 503. Verifying again re-checks
// the record and keeps the first verification time.
func (s *Service) VerifyDomain(ctx context.Context, p domain.Principal, orgID uuid.UUID, name string) (Domain, error) {
	q := s.db.Q()
	if err := s.domainAccess(ctx, q, p, orgID); err != nil {
		return Domain{}, err
	}
	row, err := ssodb.GetDomain(ctx, q, orgID, strings.ToLower(name))
	if err != nil {
		return Domain{}, domain.NotFoundAs(err, "domain")
	}
	want := toDomain(row)
	lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	txts, err := s.resolver.LookupTXT(lctx, want.RecordName)
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		txts = nil
	case err != nil:
		return Domain{}, domain.Unavailable("the DNS lookup of " + want.RecordName + " failed; try again later")
	}
	if !slices.Contains(txts, want.RecordText) {
		return Domain{}, domain.Invalid("domain: no TXT record " + want.RecordName + " holds " + want.RecordText + " yet; publish it and verify again")
	}
	var out Domain
	err = s.db.InTx(ctx, func(q store.Querier) error {
		if err := s.domainAccess(ctx, q, p, orgID); err != nil {
			return err
		}
		now := s.clock.Now()
		v, err := ssodb.MarkVerified(ctx, q, orgID, row.Domain, now)
		if err != nil {
			return domain.NotFoundAs(err, "domain")
		}
		out = toDomain(v)
		if row.VerifiedAt != nil {
			return nil
		}
		return domain.Record(ctx, q, domain.Change{At: now, OrgID: orgID, ActorID: &p.UserID, EntityType: "sso_domain",
			EntityID: orgID, Action: "verified", Changes: []domain.FieldChange{{Field: "domain", New: row.Domain}}})
	})
	return out, err
}

package importer

import (
	"context"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/domain/exchange/export"
	"tracker/domain/label"
	"tracker/domain/project"
)

// MaxProblems caps the problems listed in one 422; a count of the rest
// follows them.
const MaxProblems = 1000

// MaxCommentsPerTicket caps the comments of one ticket in a document: an
// import writes a ticket's comments in one statement, which also rebuilds
// the ticket's search vector from all of them, so the cap bounds the work
// of that statement. It is far above any real discussion.
const MaxCommentsPerTicket = 10_000

// Known answers the references a document makes to the target org instead
// of its own arrays: lower-cased emails of the org's members, and workflow
// names of the org.
type Known interface {
	MemberEmails(ctx context.Context, emails []string) (map[string]bool, error)
	WorkflowNames(ctx context.Context, names []string) (map[string]bool, error)
}

var (
	workflowCategories = []string{"todo", "in_progress", "done", "cancelled"}
	enforcements       = []string{"none", "warn", "strict"}
	sprintStatuses     = []string{"Planned", "Active", "Completed"}
	entryStatuses      = []string{"Draft", "Submitted", "Approved"}
)

// checker collects problems by path.
type checker struct {
	skip     map[string]bool // paths whose type was already wrong
	problems []string
	more     int
	emails   map[string]bool     // lower-cased emails of users[]
	refs     map[string][]string // email not in users[] → paths naming it
	wfs      map[string][]string // workflow not in workflows[] → paths
	docWF    map[string]map[string]bool
	labels   map[string]bool
	teams    map[string]bool // lower-cased names of teams[]
	// fields are the document's custom fields by key; projectKeys the
	// upper-cased keys of its projects.
	fields      map[string]customfield.Field
	projectKeys map[string]bool
}

func (c *checker) add(path, problem string) {
	if c.skip[path] {
		return
	}
	if len(c.problems) >= MaxProblems {
		c.more++
		return
	}
	c.problems = append(c.problems, path+": "+problem)
}

// rules adds the problems a domain's own check finds (the checks the API
// applies to a request), each under path: the check names the field, the
// document its place.
func (c *checker) rules(path string, check func(*domain.Problems)) {
	var p domain.Problems
	check(&p)
	for _, s := range p {
		field, problem, _ := strings.Cut(s, ": ")
		c.add(path+"."+field, problem)
	}
}

func (c *checker) required(path, v string) bool {
	if strings.TrimSpace(v) == "" {
		c.add(path, "required")
		return false
	}
	return true
}

// email checks a reference to a user: in users[], or (checked later
// against the database) a member of the target org.
func (c *checker) email(path, v string) {
	if !c.required(path, v) {
		return
	}
	if l := strings.ToLower(v); !c.emails[l] {
		c.refs[l] = append(c.refs[l], path)
	}
}

func (c *checker) optEmail(path string, v *string) {
	if v != nil {
		c.email(path, *v)
	}
}

func (c *checker) oneOf(path, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		c.add(path, "must be one of "+strings.Join(allowed, ", "))
	}
}

func (c *checker) date(path, v string) bool {
	if _, err := time.Parse("2006-01-02", v); err != nil {
		c.add(path, "must be a date YYYY-MM-DD")
		return false
	}
	return true
}

func (c *checker) length(path string, v *string, min, max int) {
	if v == nil {
		return
	}
	if n := utf8.RuneCountInString(*v); n < min || n > max {
		c.add(path, fmt.Sprintf("must be %d-%d characters", min, max))
	}
}

// validate checks the rules of a decoded document and its references to
// the target org; it returns the problems (nil: none).
func validate(ctx context.Context, d decoded, known Known) ([]string, error) {
	c := &checker{skip: map[string]bool{}, emails: map[string]bool{}, refs: map[string][]string{},
		wfs: map[string][]string{}, docWF: map[string]map[string]bool{}, labels: map[string]bool{}, teams: map[string]bool{}}
	if !d.complete {
		return d.typeProblems, nil
	}
	for path := range d.typePaths {
		c.skip[path] = true
	}
	doc := d.doc
	// The caps of every request body (text, names, money, dates) hold here
	// too; a path over a cap gets that one problem, not a second one from
	// the rules below.
	domain.CheckBounds(doc, func(path, problem string) bool {
		c.add(path, problem)
		c.skip[path] = true
		return true
	})
	if doc.Version == nil {
		c.add("version", "required")
	}
	c.required("source", doc.Source)
	if doc.ExportedAt.IsZero() {
		c.add("exported_at", "required")
	}
	for name, arr := range map[string]bool{"users": doc.Users == nil, "workflows": doc.Workflows == nil,
		"labels": doc.Labels == nil, "projects": doc.Projects == nil} {
		if arr {
			c.add(name, "required")
		}
	}
	c.users(doc.Users)
	c.workflows(doc.Workflows)
	c.labelList(doc.Labels)
	c.teamList(doc.Teams)
	c.projectKeys = map[string]bool{}
	for _, p := range doc.Projects {
		c.projectKeys[strings.ToUpper(p.Key)] = true
	}
	c.fieldList(doc.Fields)
	keys := map[string]int{}
	for i, p := range doc.Projects {
		path := fmt.Sprintf("projects[%d]", i)
		if prev, dup := keys[strings.ToUpper(p.Key)]; dup && p.Key != "" {
			c.add(path+".key", fmt.Sprintf("duplicate project key (also projects[%d])", prev))
		}
		keys[strings.ToUpper(p.Key)] = i
		c.project(path, p)
	}
	if err := c.resolve(ctx, known); err != nil {
		return nil, err
	}
	out := append(d.typeProblems, c.problems...)
	if c.more > 0 {
		out = append(out, fmt.Sprintf("… and %d more problems", c.more))
	}
	return out, nil
}

func (c *checker) users(us []export.User) {
	for i, u := range us {
		path := fmt.Sprintf("users[%d]", i)
		if c.required(path+".email", u.Email) {
			if _, err := mail.ParseAddress(u.Email); err != nil || strings.ContainsAny(u.Email, "<> ") {
				c.add(path+".email", "must be a valid email address")
			} else if c.emails[strings.ToLower(u.Email)] {
				c.add(path+".email", "duplicate email")
			}
			c.emails[strings.ToLower(u.Email)] = true
		}
		c.length(path+".display_name", &u.DisplayName, 0, 255)
		if u.Role != nil && domain.ParseRole(*u.Role) == domain.RoleNone {
			c.add(path+".role", "must be one of Owner, Admin, Member, Reporter, Viewer, or null")
		}
	}
}

func (c *checker) workflows(ws []export.Workflow) {
	for i, w := range ws {
		path := fmt.Sprintf("workflows[%d]", i)
		if c.required(path+".name", w.Name) {
			if c.docWF[w.Name] != nil {
				c.add(path+".name", "duplicate workflow name")
			}
		}
		statuses := map[string]bool{}
		if len(w.Statuses) == 0 {
			c.add(path+".statuses", "must have at least 1 items")
		}
		for j, s := range w.Statuses {
			sp := fmt.Sprintf("%s.statuses[%d]", path, j)
			if c.required(sp+".name", s.Name) && statuses[s.Name] {
				c.add(sp+".name", "duplicate status name")
			}
			statuses[s.Name] = true
			c.oneOf(sp+".category", s.Category, workflowCategories)
		}
		for j, t := range w.Transitions {
			tp := fmt.Sprintf("%s.transitions[%d]", path, j)
			if !statuses[t.From] {
				c.add(tp+".from", "must be a status of the workflow")
			}
			if !statuses[t.To] {
				c.add(tp+".to", "must be a status of the workflow")
			}
		}
		if w.Enforcement != "" {
			c.oneOf(path+".enforcement", w.Enforcement, enforcements)
		}
		c.docWF[w.Name] = statuses
	}
}

// teamList checks teams (optional in the document: absent means none).
func (c *checker) teamList(ts []export.Team) {
	for i, t := range ts {
		path := fmt.Sprintf("teams[%d]", i)
		if c.required(path+".name", t.Name) && c.teams[strings.ToLower(t.Name)] {
			c.add(path+".name", "duplicate team name (names are unique ignoring case)")
		}
		c.teams[strings.ToLower(t.Name)] = true
		c.length(path+".name", &t.Name, 1, 255)
		for j, m := range t.Members {
			c.email(fmt.Sprintf("%s.members[%d]", path, j), m)
		}
	}
}

func (c *checker) labelList(ls []export.Label) {
	for i, l := range ls {
		path := fmt.Sprintf("labels[%d]", i)
		c.rules(path, func(p *domain.Problems) { label.CheckContent(p, domain.Filled(l.Content, "name", "color")) })
		if strings.TrimSpace(l.Name) != "" && c.labels[strings.ToLower(l.Name)] {
			c.add(path+".name", "duplicate label name")
		}
		c.labels[strings.ToLower(l.Name)] = true
	}
}

// resolve checks the references that the document's arrays do not hold
// against the target org.
func (c *checker) resolve(ctx context.Context, known Known) error {
	if len(c.refs) > 0 {
		emails := make([]string, 0, len(c.refs))
		for e := range c.refs {
			emails = append(emails, e)
		}
		found, err := known.MemberEmails(ctx, emails)
		if err != nil {
			return err
		}
		slices.Sort(emails)
		for _, e := range emails {
			if !found[e] {
				for _, p := range c.refs[e] {
					c.add(p, "must be the email of a user in users or of a member of the organization")
				}
			}
		}
	}
	if len(c.wfs) > 0 {
		names := make([]string, 0, len(c.wfs))
		for n := range c.wfs {
			names = append(names, n)
		}
		found, err := known.WorkflowNames(ctx, names)
		if err != nil {
			return err
		}
		slices.Sort(names)
		for _, n := range names {
			if !found[n] {
				for _, p := range c.wfs[n] {
					c.add(p, "must be the name of a workflow in workflows or of the organization")
				}
			}
		}
	}
	return nil
}

// checkProjectFields holds a document's project to the API's own project
// checks where the two agree, with paths inside the document.
func (c *checker) checkProjectFields(path string, p export.Project) {
	c.rules(path, func(probs *domain.Problems) {
		project.NormalizeKey(probs, p.Key)
		project.CheckName(probs, p.Name)
	})
	// The API's own checks of the description, the finance texts and the
	// budget period differ (its description message, blank text refused, a
	// period in any case): a document keeps the import's rules for them.
	c.length(path+".description", p.Description, 0, project.MaxDescription)
	c.length(path+".capitalization_type", p.CapitalizationType, 1, project.MaxFinanceText)
	c.length(path+".development_phase", p.DevelopmentPhase, 1, project.MaxFinanceText)
	c.length(path+".cost_center_id", p.CostCenterID, 1, project.MaxFinanceText)
	c.rules(path, func(probs *domain.Problems) {
		project.CheckAmortization(probs, p.AmortizationMonths)
		project.NormalizeEstimateUnit(probs, p.EstimateUnit)
		project.CheckInService(probs, p.PlacedInService)
		project.CheckBudget(probs, p.BudgetCents)
	})
	if p.BudgetPeriod != nil {
		c.oneOf(path+".budget_period", *p.BudgetPeriod, project.BudgetPeriods)
	}
	if p.TicketCounter < 0 {
		c.add(path+".ticket_counter", "must be at least 0")
	}
}

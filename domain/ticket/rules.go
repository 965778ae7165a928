package ticket

import (
	"sync"

	"tracker/domain/statusflow"
	"tracker/store/ticketdb"
)

// rulesCache keeps parsed workflows by their stored content, so creating
// and moving tickets does not decode the same JSON on every request. The key
// is the content itself: an edited workflow is simply a new entry.
type rulesCache struct {
	mu sync.RWMutex
	m  map[string]statusflow.Rules
}

const maxCachedRules = 1024

// rulesOf reads the governing workflow selected with a ticket or project;
// none left (the org's Default was deleted) means the built-in Default.
func (s *Service) rulesOf(w ticketdb.WorkflowRow) (statusflow.Rules, error) {
	if w.WorkflowName == nil {
		return statusflow.DefaultRules(), nil
	}
	enf := ""
	if w.WorkflowEnforcement != nil {
		enf = *w.WorkflowEnforcement
	}
	key := *w.WorkflowName + "\x00" + enf + "\x00" + string(w.WorkflowStatuses) + "\x00" + string(w.WorkflowTransitions)
	c := &s.rules
	c.mu.RLock()
	r, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return r, nil
	}
	r, err := statusflow.ParseRules(*w.WorkflowName, enf, w.WorkflowStatuses, w.WorkflowTransitions)
	if err != nil {
		return r, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedRules {
		c.m = make(map[string]statusflow.Rules)
	}
	c.m[key] = r
	c.mu.Unlock()
	return r, nil
}

package apitest

import (
	"testing"

	"tracker/api"
	"tracker/api/projects"
	statusflowapi "tracker/api/statusflow"
	"tracker/domain/project"
	"tracker/domain/statusflow"
)

// ProjectModules are the projects and workflow (statusflow) modules on the
// env's database, as Options.Modules: the app the projects and statusflow
// API tests share (a project needs a workflow; a workflow is used by
// projects).
func ProjectModules(e *Env) []api.Module {
	return []api.Module{
		projects.New(project.New(e.DB, e.Clock)),
		statusflowapi.New(statusflow.New(e.DB, e.Clock)),
	}
}

// NewProjects builds the app with the ProjectModules on a fresh database.
func NewProjects(t testing.TB) *Env {
	t.Helper()
	return New(t, Options{Modules: ProjectModules})
}

// NewProjectsOrg is NewProjects with the Org in it.
func NewProjectsOrg(t testing.TB) Org {
	t.Helper()
	return NewOrg(t, Options{Modules: ProjectModules})
}

package apitest

import (
	"testing"

	"tracker/api"
	"tracker/api/projects"
	statusflowapi "tracker/api/statusflow"
	"tracker/domain/project"
	"tracker/domain/statusflow"
)

// NewProjects builds the app with the projects and workflow (statusflow)
// modules mounted on a fresh database: the env the projects and statusflow
// API tests share (a project needs a workflow; a workflow is used by
// projects).
func NewProjects(t testing.TB) *Env {
	t.Helper()
	return New(t, Options{Modules: func(e *Env) []api.Module {
		return []api.Module{
			projects.New(project.New(e.DB, e.Clock)),
			statusflowapi.New(statusflow.New(e.DB, e.Clock)),
		}
	}})
}

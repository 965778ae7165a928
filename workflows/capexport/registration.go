package capexport

import (
	"context"

	sdkworker "go.temporal.io/sdk/worker"

	acts "tracker/activities/capexport"
	"tracker/domain/capex"
	"tracker/worker"
)

// WorkerRegistration plugs the export into the shared worker: the workflow
// and its activities, and the monthly Schedule ensured at every start.
// cmd/tracker lists it with one line:
//
//	capexport.WorkerRegistration(&capex.Service{DB: db})
func WorkerRegistration(svc *capex.Service) worker.Registration {
	return worker.Registration{
		Name:     "capitalization-export",
		Register: func(r sdkworker.Registry) { Register(r, &acts.Activities{Exports: svc}) },
		Start: func(ctx context.Context, env worker.Env) error {
			return EnsureSchedule(ctx, env.Client, env.TaskQueue)
		},
	}
}

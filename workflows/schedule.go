package workflows

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// EnsureSchedule creates the Schedule o describes, or brings an existing one
// with its id to o's spec, action, overlap policy and catch-up window: safe
// to call at every worker start, so a changed spec takes effect on deploy.
func EnsureSchedule(ctx context.Context, c client.Client, o client.ScheduleOptions) error {
	_, err := c.ScheduleClient().Create(ctx, o)
	if err == nil {
		return nil
	}
	if !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("create schedule %s: %w", o.ID, err)
	}
	err = c.ScheduleClient().GetHandle(ctx, o.ID).Update(ctx, client.ScheduleUpdateOptions{
		DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			s := in.Description.Schedule
			spec := o.Spec
			s.Spec, s.Action = &spec, o.Action
			if s.Policy == nil {
				s.Policy = &client.SchedulePolicies{}
			}
			s.Policy.Overlap = o.Overlap
			if o.CatchupWindow != 0 {
				s.Policy.CatchupWindow = o.CatchupWindow
			}
			return &client.ScheduleUpdate{Schedule: &s}, nil
		}})
	if err != nil {
		return fmt.Errorf("update schedule %s: %w", o.ID, err)
	}
	return nil
}

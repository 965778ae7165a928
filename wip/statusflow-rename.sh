#!/usr/bin/env bash
# Rename the ticket-status feature's Go packages to statusflow (api, domain, store).
set -euo pipefail
cd "$1"
git mv api/workflows api/statusflow
git mv api/statusflow/workflows_test.go api/statusflow/statusflow_test.go
git mv domain/workflow domain/statusflow
git mv store/workflowdb store/statusflowdb
git mv store/statusflowdb/workflowdb.go store/statusflowdb/statusflowdb.go
# package clauses
sed -i 's/^package workflows_test$/package statusflow_test/; s/^package workflows$/package statusflow/' api/statusflow/*.go
sed -i 's/^package workflow_test$/package statusflow_test/; s/^package workflow$/package statusflow/' domain/statusflow/*.go
sed -i 's/^package workflowdb$/package statusflowdb/; s#^// Package workflowdb holds the SQL of workflows\.#// Package statusflowdb holds the SQL of ticket-status workflows (the workflows table).#' store/statusflowdb/*.go
# store: unique name everywhere
for f in $(grep -rl 'workflowdb' --include=*.go . | grep -v '^./bin'); do
  sed -i 's#"tracker/store/workflowdb"#"tracker/store/statusflowdb"#; s/\bworkflowdb\./statusflowdb./g' "$f"
done
# domain: files that import tracker/domain/workflow (none imports Temporal's workflow package)
for f in $(grep -rl '"tracker/domain/workflow"' --include=*.go . | grep -v '^./bin') domain/statusflow/*_test.go; do
  if grep -q 'go.temporal.io/sdk/workflow"' "$f"; then echo "skip (temporal): $f" >&2; exit 1; fi
  sed -i 's#"tracker/domain/workflow"#"tracker/domain/statusflow"#; s/\bworkflow\.\([A-Z]\)/statusflow.\1/g' "$f"
done
sed -i 's#(domain/workflow\.DefaultName#(domain/statusflow.DefaultName#' store/statusflowdb/crud.go
# api: the handlers' package
for f in $(grep -rl '"tracker/api/workflows"' --include=*.go . | grep -v '^./bin'); do
  sed -i 's#"tracker/api/workflows"#statusflowapi "tracker/api/statusflow"#; s/\bworkflows\.New(/statusflowapi.New(/g' "$f"
done
sed -i 's/\bh\.workflows\./h.flows./g; s/^\tworkflows \*statusflow\.Service$/\tflows *statusflow.Service/; s/^func New(workflows \*statusflow\.Service) Handlers {$/func New(flows *statusflow.Service) Handlers {/; s/return Handlers{workflows: workflows}/return Handlers{flows: flows}/' api/statusflow/routes.go
# cmd/tracker's service field
sed -i 's/^\tWorkflows \*statusflow\.Service$/\tStatusflows *statusflow.Service/; s/^\t\tWorkflows:   statusflow\.New(/\t\tStatusflows: statusflow.New(/; s/statusflowapi\.New(s\.Workflows)/statusflowapi.New(s.Statusflows)/' cmd/tracker/serve.go
gofmt -w api/statusflow domain store cmd/tracker api/projects
python3 - <<'PY'
import re
p='api/statusflow/routes.go'
s=open(p).read()
s=s.replace("// Package workflows serves workflows: their statuses, transitions and\n// enforcement.","// Package statusflow serves ticket-status workflows (the /workflows routes):\n// their statuses, transitions and enforcement.")
open(p,'w').write(s)
p='domain/statusflow/default.go'
s=open(p).read()
s=s.replace("// Package workflow holds the rules of workflows: statuses, transitions and\n// their enforcement.","// Package statusflow holds the rules of ticket-status workflows (the API's\n// \"workflows\"; named statusflow so it is never taken for a Temporal\n// workflow): statuses, transitions and their enforcement.")
open(p,'w').write(s)
PY

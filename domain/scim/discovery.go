package scim

// ServiceProviderConfig answers GET /ServiceProviderConfig (RFC 7643 §5).
func (s *Service) ServiceProviderConfig() map[string]any {
	return map[string]any{
		"schemas":        []string{SPConfigSchema},
		"patch":          map[string]any{"supported": true},
		"bulk":           map[string]any{"supported": false, "maxOperations": 0, "maxPayloadSize": 0},
		"filter":         map[string]any{"supported": true, "maxResults": MaxCount},
		"changePassword": map[string]any{"supported": false},
		"sort":           map[string]any{"supported": false},
		"etag":           map[string]any{"supported": true},
		"authenticationSchemes": []map[string]any{{
			"type": "oauthbearertoken", "name": "SCIM bearer token", "primary": true,
			"description": "The organization's SCIM token (scim_…), issued by POST /api/v1/orgs/{org_id}/sso/scim-token",
		}},
		"meta": map[string]any{"resourceType": "ServiceProviderConfig", "location": s.base + "/ServiceProviderConfig"},
	}
}

// ResourceTypes answers GET /ResourceTypes.
func (s *Service) ResourceTypes() []map[string]any {
	return []map[string]any{s.resourceType("User"), s.resourceType("Group")}
}

// ResourceType answers GET /ResourceTypes/{name} (nil: unknown).
func (s *Service) ResourceType(name string) map[string]any {
	switch name {
	case "User", "Group":
		return s.resourceType(name)
	}
	return nil
}

func (s *Service) resourceType(name string) map[string]any {
	schema, endpoint := UserSchema, "/Users"
	if name == "Group" {
		schema, endpoint = GroupSchema, "/Groups"
	}
	return map[string]any{"schemas": []string{ResTypeSchema}, "id": name, "name": name, "endpoint": endpoint,
		"description": name, "schema": schema, "schemaExtensions": []any{},
		"meta": map[string]any{"resourceType": "ResourceType", "location": s.base + "/ResourceTypes/" + name}}
}

func attr(name, typ string, required bool, mutability, uniqueness string, caseExact bool, sub ...map[string]any) map[string]any {
	a := map[string]any{"name": name, "type": typ, "multiValued": false, "required": required, "caseExact": caseExact,
		"mutability": mutability, "returned": "default", "uniqueness": uniqueness, "description": name}
	if len(sub) > 0 {
		a["subAttributes"] = sub
	}
	return a
}

func multi(a map[string]any) map[string]any { a["multiValued"] = true; return a }

// Schemas answers GET /Schemas: the attributes this service keeps.
func (s *Service) Schemas() []map[string]any {
	return []map[string]any{s.Schema(UserSchema), s.Schema(GroupSchema)}
}

// Schema answers GET /Schemas/{id} (nil: unknown).
func (s *Service) Schema(id string) map[string]any {
	var attrs []map[string]any
	var name string
	switch id {
	case UserSchema:
		name = "User"
		attrs = []map[string]any{
			attr("userName", "string", true, "readWrite", "server", false),
			attr("name", "complex", false, "readWrite", "none", false,
				attr("givenName", "string", false, "readWrite", "none", false),
				attr("familyName", "string", false, "readWrite", "none", false),
				attr("formatted", "string", false, "readOnly", "none", false)),
			attr("displayName", "string", false, "readWrite", "none", false),
			attr("active", "boolean", false, "readWrite", "none", false),
			multi(attr("emails", "complex", false, "readWrite", "none", false,
				attr("value", "string", false, "readWrite", "none", false),
				attr("type", "string", false, "readWrite", "none", false),
				attr("primary", "boolean", false, "readWrite", "none", false))),
			attr("externalId", "string", false, "readWrite", "none", true),
		}
	case GroupSchema:
		name = "Group"
		attrs = []map[string]any{
			attr("displayName", "string", true, "readWrite", "server", false),
			multi(attr("members", "complex", false, "readWrite", "none", false,
				attr("value", "string", false, "immutable", "none", true),
				attr("display", "string", false, "readOnly", "none", false),
				attr("$ref", "reference", false, "immutable", "none", true))),
			attr("externalId", "string", false, "readWrite", "none", true),
		}
	default:
		return nil
	}
	return map[string]any{"schemas": []string{SchemaSchema}, "id": id, "name": name, "description": name, "attributes": attrs,
		"meta": map[string]any{"resourceType": "Schema", "location": s.base + "/Schemas/" + id}}
}

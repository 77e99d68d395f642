package guest

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	types "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_2_0_types"
	lr "tfwasm.dev/go/internal/wit/imports/tfwasm_provider_0_3_0_list_resource"
	witrt "tfwasm.dev/go/internal/witrt/types"
)

// A page of a listing ends at this many objects, or at the first object past listPageBytes
// of values, whichever comes first: what the guest holds of a listing at once.
const (
	listPageObjects = 1000
	listPageBytes   = 4 << 20
)

// ListResourceSchemas answers list-resource.list-resource-schemas.
func ListResourceSchemas() []types.NamedSchema {
	return guarded(func() []types.NamedSchema {
		all, _ := providerSchemas()
		if all == nil {
			return nil
		}
		return named(all.ListResourceSchemas)
	}, func(types.Diagnostic) []types.NamedSchema { return nil })
}

// listServer is the provider's list resource server; nil when the provider lists nothing.
func listServer(s tfprotov6.ProviderServer) tfprotov6.ListResourceServer {
	l, _ := s.(tfprotov6.ListResourceServer)
	return l
}

func unsupported(family, typeName string) []*tfprotov6.Diagnostic {
	return []*tfprotov6.Diagnostic{{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Unsupported " + family,
		Detail:   fmt.Sprintf("This provider's server implements no %ss, so it has no %q.", family, typeName),
	}}
}

// ValidateListResourceConfig answers list-resource.validate-list-resource-config.
func ValidateListResourceConfig(typeName string, config []uint8) []types.Diagnostic {
	return guarded(func() []types.Diagnostic {
		l := listServer(provider())
		if l == nil {
			return diagnostics(unsupported("list resource", typeName))
		}
		resp, err := l.ValidateListResourceConfig(background(), &tfprotov6.ValidateListResourceConfigRequest{
			TypeName: typeName,
			Config:   dynamic(config),
		})
		return diagnostics(answered(resp, err, func(r *tfprotov6.ValidateListResourceConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics }))
	}, failed)
}

// ListResource answers list-resource.list-resource: one page. The guest keeps nothing
// between calls, so each page lists again from the start and skips what earlier pages
// returned: the cursor is how many results that was, with a digest of the last one, so a
// listing that came back otherwise this time (an object added or removed before the page)
// is an error rather than objects silently skipped or repeated. The skipped results are
// never held. As Terraform does, the listing ends at the first result with an error.
func ListResource(pc types.ProviderContext, req lr.ListRequest) lr.ListPage {
	return guarded(func() lr.ListPage {
		ctx := background()
		s, d := configuredFor(ctx, pc)
		if s == nil {
			return lr.ListPage{Diagnostics: diagnostics(d)}
		}
		l := listServer(s)
		if l == nil {
			return lr.ListPage{Diagnostics: diagnostics(append(d, unsupported("list resource", req.TypeName)...))}
		}
		resume, ok := cursorIn(req.Cursor)
		if !ok {
			return lr.ListPage{Diagnostics: failure("Invalid listing cursor",
				"The host resumed a listing with a cursor this provider did not write.")}
		}
		stream, err := l.ListResource(ctx, &tfprotov6.ListResourceRequest{
			TypeName:        req.TypeName,
			Config:          dynamic(req.Config),
			IncludeResource: req.IncludeResourceObject,
			Limit:           req.Limit,
		})
		d = append(d, answered(stream, err, func(*tfprotov6.ListResourceServerStream) []*tfprotov6.Diagnostic { return nil })...)
		page := lr.ListPage{}
		if stream == nil || err != nil || stream.Results == nil {
			page.Diagnostics = diagnostics(d)
			return page
		}
		var seen, last uint64
		size := 0
		resumed := resume.count == 0
		for result := range stream.Results {
			seen++
			if seen < resume.count {
				continue
			}
			if seen == resume.count {
				if digest(result) != resume.last {
					d = append(d, &tfprotov6.Diagnostic{
						Severity: tfprotov6.DiagnosticSeverityError,
						Summary:  "Listing changed while it was read",
						Detail: fmt.Sprintf("Result %d of this listing is not the one the previous page ended with: "+
							"the objects changed between pages (each page lists again from the start). Run the query again.", seen),
					})
					break
				}
				resumed = true
				continue
			}
			if len(page.Objects) == listPageObjects || size > listPageBytes {
				page.Next = witrt.Some(cursor{count: seen - 1, last: last}.bytes())
				break
			}
			listed, n := listedOut(result, req.IncludeResourceObject, req.TypeName)
			page.Objects = append(page.Objects, listed)
			last = digest(result)
			size += n
			if hasError(result.Diagnostics) {
				break
			}
		}
		if !resumed && len(d) == 0 {
			d = append(d, &tfprotov6.Diagnostic{
				Severity: tfprotov6.DiagnosticSeverityError,
				Summary:  "Listing changed while it was read",
				Detail:   fmt.Sprintf("This listing ended after %d results, before the %d the previous pages returned. Run the query again.", seen, resume.count),
			})
		}
		page.Diagnostics = diagnostics(d)
		return page
	}, func(d types.Diagnostic) lr.ListPage {
		return lr.ListPage{Diagnostics: failed(d)}
	})
}

// listedOut converts one result, and says how many bytes of values it holds. A result
// without an identity is diagnostics only (the framework drops the identity of a result
// with an error), which the host passes on as such.
func listedOut(r tfprotov6.ListResourceResult, withObject bool, typeName string) (lr.Listed, int) {
	out := lr.Listed{DisplayName: r.DisplayName, Identity: []byte{0xc0}}
	d := r.Diagnostics
	hasIdentity := r.Identity != nil && r.Identity.IdentityData != nil
	if hasIdentity {
		var bad *tfprotov6.Diagnostic
		out.Identity, bad = msgpack(r.Identity.IdentityData, identityType(typeName))
		d = withDiag(d, bad)
	}
	size := len(out.Identity)
	if withObject && hasIdentity && r.Resource != nil {
		object, bad := msgpack(r.Resource, resourceType(typeName))
		d = withDiag(d, bad)
		out.ResourceObject = witrt.Some(object)
		size += len(object)
	}
	out.Diagnostics = diagnostics(d)
	return out, size
}

// identityType is the value type of typeName's identity, for a JSON answer.
func identityType(typeName string) func() tftypes.Type {
	return func() tftypes.Type {
		s := provider()
		ids, err := s.GetResourceIdentitySchemas(background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
		if err == nil && ids != nil {
			if schema := ids.IdentitySchemas[typeName]; schema != nil {
				return schema.ValueType()
			}
		}
		return tftypes.DynamicPseudoType
	}
}

// cursor is where a page starts: after count results, the last of which had digest last.
type cursor struct {
	count, last uint64
}

func (c cursor) bytes() []uint8 {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, c.count), c.last)
}

func cursorIn(c witrt.Option[[]uint8]) (cursor, bool) {
	if c.IsNone() {
		return cursor{}, true
	}
	b := c.Some()
	if len(b) != 16 {
		return cursor{}, false
	}
	return cursor{count: binary.BigEndian.Uint64(b), last: binary.BigEndian.Uint64(b[8:])}, true
}

// digest tells one result from another: its identity and display name.
func digest(r tfprotov6.ListResourceResult) uint64 {
	h := fnv.New64a()
	if r.Identity != nil && r.Identity.IdentityData != nil {
		h.Write(r.Identity.IdentityData.MsgPack)
		h.Write(r.Identity.IdentityData.JSON)
	}
	h.Write([]byte{0})
	h.Write([]byte(r.DisplayName))
	return h.Sum64()
}

package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
)

type slugFunction struct{}

func newSlugFunction() function.Function { return &slugFunction{} }

func (f *slugFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "slug"
}

func (f *slugFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:     "A pet name as a lowercase slug",
		Description: "Lowercases the name and joins its words with dashes; an empty name is an error.",
		Parameters:  []function.Parameter{function.StringParameter{Name: "name"}},
		Return:      function.StringReturn{},
	}
}

func (f *slugFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var name string
	resp.Error = req.Arguments.Get(ctx, &name)
	if resp.Error != nil {
		return
	}
	if strings.TrimSpace(name) == "" {
		resp.Error = function.NewArgumentFuncError(0, "a pet needs a name")
		return
	}
	resp.Error = resp.Result.Set(ctx, strings.Join(strings.Fields(strings.ToLower(name)), "-"))
}

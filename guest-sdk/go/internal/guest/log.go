package guest

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tfsdklog"
)

// loggers is the context holding the root loggers terraform-plugin-log (tflog, and the
// framework's own tfsdklog subsystems) write to: hclog JSON lines on stderr, which the host
// turns into provider log lines at their level, as go-plugin does for a native provider.
// Levels come from TF_LOG_PROVIDER, TF_LOG_SDK and TF_LOG, which the host sets for the
// guest to the level it would write guest lines at.
var loggers context.Context

func withLoggers() context.Context {
	if loggers == nil {
		root := context.Background()
		root = tfsdklog.NewRootSDKLogger(root,
			tfsdklog.WithLevelFromEnv("TF_LOG_SDK"), tfsdklog.WithStderrFromInit(), tfsdklog.WithoutLocation())
		root = tfsdklog.NewRootProviderLogger(root,
			tfsdklog.WithLevelFromEnv("TF_LOG_PROVIDER"), tfsdklog.WithStderrFromInit(), tfsdklog.WithoutLocation())
		loggers = root
	}
	return loggers
}

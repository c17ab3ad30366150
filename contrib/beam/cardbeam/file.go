package cardbeam

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// writeFile writes b to path on the Beam filesystem its scheme names.
func writeFile(ctx context.Context, path string, b []byte) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

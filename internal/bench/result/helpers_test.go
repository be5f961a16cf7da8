package result

import "os"

func writeRaw(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

package binpages

import (
	"slices"
	"strings"
	"testing"
)

func TestReadOnlySpans(t *testing.T) {
	const maps = `00400000-01e00000 r-xp 00000000 fd:01 1234 /usr/bin/kapi
01e00000-03000000 r--p 01a00000 fd:01 1234 /usr/bin/kapi
03000000-03100000 rw-p 02c00000 fd:01 1234 /usr/bin/kapi
03100000-03200000 rw-p 00000000 00:00 0
c000000000-c004000000 rw-p 00000000 00:00 0
7f0000000000-7f0000100000 r--p 00000000 fd:01 999 /usr/lib/locale/C.utf8
7f0000200000-7f0000300000 r--s 00000000 fd:01 1234 /usr/bin/kapi
7f0000400000-7f0000500000 r-xp 00000000 00:2a 77 /opt/my tools/kapi (deleted)
7f0000600000-7f0000700000 ---p 00000000 fd:01 1234 /usr/bin/kapi
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]
7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0 [vdso]
garbage line
`
	tests := []struct {
		name string
		file fileID
		path string
		want []span
	}{
		{
			name: "by device and inode: text, rodata and a shared read-only mapping",
			file: fileID{0xfd, 0x01, 1234},
			want: []span{{0x400000, 0x1e00000}, {0x1e00000, 0x3000000}, {0x7f0000200000, 0x7f0000300000}},
		},
		{
			name: "by path, spaces and all, when the ids differ",
			file: fileID{0x8, 0x1, 55},
			path: "/opt/my tools/kapi (deleted)",
			want: []span{{0x7f0000400000, 0x7f0000500000}},
		},
		{
			name: "no path never matches anonymous memory",
			file: fileID{0x8, 0x1, 55},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readOnlySpans(strings.NewReader(maps), tt.file, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("spans = %x, want %x", got, tt.want)
			}
		})
	}
}

package validation

import "testing"

func TestParseCronSchedule(t *testing.T) {
	tests := []struct {
		spec, err string
	}{
		{"*/5 * * * *", ""},
		{"0 0 * * MON-FRI", ""},
		{"0 0 1 jan,JUL ?", ""},
		{"5-10/2 0-23 1-31 1-12 0-6", ""},
		{"@hourly", ""},
		{"@every 1h30m", ""},
		{"TZ=UTC 0 * * * *", ""},
		{"", "empty spec string"},
		{"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
		{"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
		{"61 * * * *", "end of range (61) above maximum (59): 61"},
		{"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
		{"* * * * 7", "end of range (7) above maximum (6): 7"},
		{"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"1-2-3 * * * *", "too many hyphens: 1-2-3"},
		{"*/2/3 * * * *", "too many slashes: */2/3"},
		{"a * * * *", `failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax`},
		{"@often", "unrecognized descriptor: @often"},
		{"@every soon", `failed to parse duration @every soon: time: invalid duration "soon"`},
		{"TZ=Mars/Olympus 0 * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"},
	}
	for _, tt := range tests {
		err := ParseCronSchedule(tt.spec)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("ParseCronSchedule(%q) = %q, want %q", tt.spec, got, tt.err)
		}
	}
}

func FuzzParseCronSchedule(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "@every 1h", "TZ=UTC 0 * * * *", "1-2/3,4 * ? JAN sun"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		_ = ParseCronSchedule(spec) // must not panic
	})
}

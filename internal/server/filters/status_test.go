package filters

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestWriteStatus(t *testing.T) {
	tests := []struct {
		name           string
		err            error
		wantCode       int
		wantBody       string
		wantRetryAfter string
	}{
		{
			name:     "not found",
			err:      apierrors.NewGenericServerResponse(404, "", schema.GroupResource{}, "", "", 0, false),
			wantCode: 404,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n",
		},
		{
			name:     "unauthorized",
			err:      apierrors.NewUnauthorized("Unauthorized"),
			wantCode: 401,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n",
		},
		{
			name:           "too many requests",
			err:            apierrors.NewTooManyRequests("slow down", 3),
			wantCode:       429,
			wantBody:       `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":3},"code":429}` + "\n",
			wantRetryAfter: "3",
		},
		{
			name:     "plain error",
			err:      errors.New("boom"),
			wantCode: 500,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500}` + "\n",
		},
		{
			name:     "wrapped status",
			err:      errors.Join(errors.New("context"), apierrors.NewBadRequest("bad")),
			wantCode: 400,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"bad","reason":"BadRequest","code":400}` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteStatus(rec, tt.err)
			if rec.Code != tt.wantCode {
				t.Errorf("code = %d, want %d", rec.Code, tt.wantCode)
			}
			if got := rec.Body.String(); got != tt.wantBody {
				t.Errorf("body:\n got %s\nwant %s", got, tt.wantBody)
			}
			if got := rec.Header().Get("Retry-After"); got != tt.wantRetryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tt.wantRetryAfter)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q", got)
			}
			if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q", got)
			}
		})
	}
}

func TestSimpleHeaderFilters(t *testing.T) {
	presetCache := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	tests := []struct {
		name    string
		handler http.Handler
		preset  http.Header
		header  string
		want    string
	}{
		{"cache control", WithCacheControl(ok), nil, "Cache-Control", "no-cache, private"},
		{"cache control kept", WithCacheControl(presetCache), http.Header{"Cache-Control": {"public"}}, "Cache-Control", "public"},
		{"hsts", WithHSTS(ok, []string{"max-age=31536000", "includeSubDomains"}), nil, "Strict-Transport-Security", "max-age=31536000; includeSubDomains"},
		{"hsts off", WithHSTS(ok, nil), nil, "Strict-Transport-Security", ""},
		{"audit id reused", WithRequestID(ok), nil, "Audit-Id", "from-client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			for k, v := range tt.preset {
				rec.Header()[k] = v
			}
			req := httptest.NewRequest(http.MethodGet, "/x", nil)
			req.Header.Set("Audit-Id", "from-client")
			tt.handler.ServeHTTP(rec, req)
			if got := rec.Header().Get(tt.header); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.header, got, tt.want)
			}
		})
	}
}

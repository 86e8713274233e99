package config

import "testing"

func TestParse(t *testing.T) {
	settings, err := Parse("# server\nport = 8080\n\nhost=example.com\n")
	if err != nil {
		t.Fatal(err)
	}
	if settings["port"] != "8080" || settings["host"] != "example.com" || len(settings) != 2 {
		t.Errorf("got %v", settings)
	}
}

func TestParseRejectsLinesWithoutEquals(t *testing.T) {
	if _, err := Parse("port 8080\n"); err == nil {
		t.Error("expected an error")
	}
}

package metrics

import (
	"reflect"
	"testing"
)

func TestTop(t *testing.T) {
	counter := NewCounter()
	counter.Add("login", 3)
	counter.Add("logout", 1)
	counter.Add("search", 5)
	counter.Add("login", 2)
	if got, want := counter.Top(2), []string{"login", "search"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Top(2) = %v, want %v", got, want)
	}
}

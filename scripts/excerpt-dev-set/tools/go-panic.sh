# Go: a test whose worker goroutine panics while the rest of the program waits, run as CI often
# runs it (GOTRACEBACK=all): the runtime prints the panic, the panicking goroutine's stack, then
# every other goroutine (`[chan receive]`, `[select]`, `[IO wait]`…) before `exit status 2`.

if wanted go-panic && has go go; then
  d=$(project go-panic) && mkdir -p "$d/orders" "$d/ship" "$d/stock"
  printf 'module example.com/shop\n\ngo 1.19\n' >"$d/go.mod"
  cat >"$d/orders/pool.go" <<'EOF'
package orders

import (
	"net"
	"sync"
	"time"
)

type Order struct {
	ID     int
	Lines  []int
	Coupon bool
}

// Pool prices orders on a set of workers, with a dispatcher feeding them and a status listener.
type Pool struct {
	jobs     chan Order
	results  chan int
	quit     chan struct{}
	listener net.Listener
	wg       sync.WaitGroup
}

func NewPool(workers int) (*Pool, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Pool{jobs: make(chan Order), results: make(chan int), quit: make(chan struct{}), listener: listener}
	go p.serveStatus()
	go p.watchdog()
	for i := 0; i < workers; i++ {
		p.wg.Add(1)
		go p.work()
	}
	return p, nil
}

func (p *Pool) serveStatus() {
	for {
		conn, err := p.listener.Accept()
		if err != nil {
			return
		}
		conn.Close()
	}
}

func (p *Pool) watchdog() {
	ticker := time.NewTicker(time.Hour)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
		case <-p.quit:
			return
		}
	}
}

func (p *Pool) work() {
	defer p.wg.Done()
	for order := range p.jobs {
		p.results <- total(order)
	}
}

func total(order Order) int {
	sum := 0
	for i := range order.Lines {
		sum += lineTotal(order, i)
	}
	if order.Coupon {
		sum -= couponValue(order)
	}
	return sum
}

// couponValue has a bug: the coupon is the order's last line, read one past the end.
func couponValue(order Order) int {
	return lineTotal(order, len(order.Lines)) / 10
}

func lineTotal(order Order, i int) int {
	return order.Lines[i]
}

func (p *Pool) Submit(order Order) int {
	p.jobs <- order
	return <-p.results
}
EOF
  cat >"$d/orders/pool_test.go" <<'EOF'
package orders

import (
	"testing"
	"time"
)

func TestPoolPricesOrders(t *testing.T) {
	p, err := NewPool(100)
	if err != nil {
		t.Fatal(err)
	}
	for id := 1; id <= 30; id++ {
		if got := p.Submit(Order{ID: id, Lines: []int{150, 320, 99}}); got != 569 {
			t.Errorf("Submit(%d) = %d, want 569", id, got)
		}
	}
	// Let every worker go back to waiting for the next order.
	time.Sleep(50 * time.Millisecond)
	if got := p.Submit(Order{ID: 31, Lines: []int{1000, 500}, Coupon: true}); got != 1350 {
		t.Errorf("Submit with a coupon = %d, want 1350", got)
	}
}
EOF
  for pkg in ship stock; do
    printf 'package %s\n\nfunc Count(names []string) int { return len(names) }\n' "$pkg" >"$d/$pkg/$pkg.go"
    printf 'package %s\n\nimport "testing"\n\nfunc TestCount(t *testing.T) {\n\tfor i := 0; i < 40; i++ {\n\t\tt.Run("n", func(t *testing.T) {\n\t\t\tif Count(make([]string, i)) != i {\n\t\t\t\tt.Fatal("count")\n\t\t\t}\n\t\t})\n\t}\n}\n' "$pkg" >"$d/$pkg/${pkg}_test.go"
  done
  record go-panic "$d" "" "GOTRACEBACK=all GOFLAGS=-count=1 go test -v -cover ./..."
fi

# Go: a test that never ends (a WaitGroup waited on for a worker that never says it is done), run
# with a timeout as CI runs it: the testing package panics and prints every goroutine, the stuck
# test's among them (`[semacquire]`), after the alarm goroutine that panicked.
if wanted go-timeout && has go go; then
  d=$(project go-timeout) && mkdir -p "$d/batch" "$d/ship"
  printf 'module example.com/shop\n\ngo 1.19\n' >"$d/go.mod"
  cat >"$d/batch/batch.go" <<'EOF'
package batch

import "sync"

// Ship sends each order to a worker and waits for them all.
func Ship(orders []int, workers int) int {
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	shipped := 0
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			// Bug: a worker never says it is done, so Ship waits for ever.
			for order := range jobs {
				mu.Lock()
				shipped += order
				mu.Unlock()
			}
		}()
	}
	for _, order := range orders {
		jobs <- order
	}
	wg.Wait()
	close(jobs)
	return shipped
}
EOF
  cat >"$d/batch/batch_test.go" <<'EOF'
package batch

import "testing"

func TestShipAll(t *testing.T) {
	if got := Ship([]int{1, 2, 3}, 12); got != 6 {
		t.Errorf("Ship = %d, want 6", got)
	}
}
EOF
  printf 'package ship\n\nfunc Count(names []string) int { return len(names) }\n' >"$d/ship/ship.go"
  printf 'package ship\n\nimport "testing"\n\nfunc TestCount(t *testing.T) {\n\tfor i := 0; i < 40; i++ {\n\t\tt.Run("n", func(t *testing.T) {\n\t\t\tif Count(make([]string, i)) != i {\n\t\t\t\tt.Fatal("count")\n\t\t\t}\n\t\t})\n\t}\n}\n' >"$d/ship/ship_test.go"
  record go-timeout "$d" "" "GOFLAGS=-count=1 go test -v -timeout 3s ./..."
fi

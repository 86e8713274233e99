#include <math.h>
#include <stdio.h>
#include "stats.h"

static int failures = 0;

static void check(int ok, const char *what) {
    if (!ok) { printf("FAIL: %s\n", what); failures++; }
}

int main(void) {
    int values[] = {1, 2, 3, 4};
    check(fabs(average(values, 4) - 2.5) < 1e-9, "average of 1..4 is 2.5");
    check(average(values, 0) == 0, "average of nothing is 0");
    check(maximum(values, 4) == 4, "maximum of 1..4 is 4");
    if (failures == 0) printf("all tests passed\n");
    return failures == 0 ? 0 : 1;
}

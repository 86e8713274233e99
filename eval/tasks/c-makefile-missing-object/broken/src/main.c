#include <stdio.h>
#include <stdlib.h>
#include "convert.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: thermo CELSIUS\n");
        return 2;
    }
    double celsius = atof(argv[1]);
    printf("%.1f C = %.1f F\n", celsius, celsius_to_fahrenheit(celsius));
    return 0;
}

#ifndef CONVERT_H
#define CONVERT_H
double celsius_to_fahrenheit(double celsius);
#endif

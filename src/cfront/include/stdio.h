/* nemos's <stdio.h>: printing has no effect on memory; nemos drops these calls. */
#ifndef NEMOS_STDIO_H
#define NEMOS_STDIO_H

#include <stddef.h>

int printf(const char *format, ...);
int fprintf(void *stream, const char *format, ...);
int puts(const char *text);

#endif

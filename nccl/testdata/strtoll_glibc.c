/* Prints glibc strtoll results for the inputs on stdin (one Go-quoted-free
 * raw input per line; "\t" is never part of an input) for bases 0 and 10.
 * Used once to make strtoll_glibc.tsv; see strtoll_test.go.
 *   gcc -std=c17 -O0 -o /tmp/strtoll_glibc strtoll_glibc.c
 *   /tmp/strtoll_glibc < strtoll_inputs.txt > strtoll_glibc.tsv
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  char line[4096];
  printf("# glibc %s strtoll(input, &end, base): input\tbase\tvalue\tused\terange\n", "2.36 (Debian 12)");
  while (fgets(line, sizeof line, stdin)) {
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n') line[--n] = 0;
    int bases[] = {0, 10};
    for (int b = 0; b < 2; b++) {
      char* end;
      errno = 0;
      long long v = strtoll(line, &end, bases[b]);
      printf("%s\t%d\t%lld\t%ld\t%d\n", line, bases[b], v, (long)(end - line), errno == ERANGE);
    }
  }
  return 0;
}

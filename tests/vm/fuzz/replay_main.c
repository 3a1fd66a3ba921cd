/*
 * replay_main.c: runs the fuzz target over files (or every file of directories) given on the
 * command line, so that the seed corpus is exercised by every build, with any compiler.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int replay_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* buf = (uint8_t*)malloc(n > 0 ? (size_t)n : 1);
  size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
  fclose(f);
  if (!buf || got != (size_t)n) {
    free(buf);
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  /* Every prefix too, as a fuzzer's first mutations would. */
  for (size_t len = 0; len <= got; len += 1 + len / 16) LLVMFuzzerTestOneInput(buf, len);
  LLVMFuzzerTestOneInput(buf, got);
  free(buf);
  return 0;
}

int main(int argc, char** argv) {
  int files = 0, failed = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "no such file or directory: %s\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      failed |= replay_file(argv[i]);
      files++;
      continue;
    }
    DIR* d = opendir(argv[i]);
    struct dirent* ent;
    while (d && (ent = readdir(d)) != NULL) {
      if (ent->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s", argv[i], ent->d_name);
      failed |= replay_file(path);
      files++;
    }
    if (d) closedir(d);
  }
  printf("replayed %d files\n", files);
  return failed || files == 0;
}

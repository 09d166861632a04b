/* parz: look inside ParZ files, check them, and compose the filter's cd_values. */
#include <stdio.h>
#include <string.h>

#include "H5Zparz.h"
#include "parz_tool.h"

static void usage(FILE* f) {
  fprintf(f,
          "usage: parz COMMAND [OPTIONS]\n"
          "  parz inspect [--summary] FILE[:/dataset]   ParZ datasets and their chunks\n"
          "  parz verify FILE[:/dataset]                decode every chunk, report bad ones\n"
          "  parz cd-values MODE [OPTIONS]              cd_values, h5repack's UD= string,\n"
          "                                             nccopy's -F (--nccopy VAR,...)\n"
          "  parz --version\n"
          "'parz COMMAND --help' describes each command.\n"
          "Exit status: 0 ok; 1 a bad chunk (verify) or an unreadable chunk header (inspect);\n"
          "2 usage error; 3 the file or dataset cannot be opened or read; 4 no ParZ dataset.\n");
}

int main(int argc, char** argv) {
  /* Errors are reported here, once, in words; HDF5's stack traces would bury them. */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (argc < 2) {
    usage(stderr);
    return PARZ_EXIT_USAGE;
  }
  const char* cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return PARZ_EXIT_OK;
  }
  if (!strcmp(cmd, "--version")) {
    unsigned major, minor, release;
    H5get_libversion(&major, &minor, &release);
    printf("parz %s (filter %d \"%s\", writes chunk format %d; HDF5 %u.%u.%u)\n",
           H5Z_PARZ_VERSION_STRING, H5Z_FILTER_PARZ, H5Z_PARZ_NAME, PARZ_CHUNK_FORMAT_VERSION,
           major, minor, release);
    return PARZ_EXIT_OK;
  }
  if (!strcmp(cmd, "inspect"))
    return tool_inspect(argc - 2, argv + 2);
  if (!strcmp(cmd, "verify"))
    return tool_verify(argc - 2, argv + 2);
  if (!strcmp(cmd, "cd-values"))
    return tool_cd_values(argc - 2, argv + 2);
  fprintf(stderr, "parz: unknown command '%s'\n", cmd);
  usage(stderr);
  return PARZ_EXIT_USAGE;
}

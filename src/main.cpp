// gpustack: tells people who fine-tune LLMs whether their GPU software stack will work, and why
// not. All the work is in gpustack_core; see src/cli/cli.cpp for the command table.
#include "cli/cli.h"

int main(int argc, char** argv) { return gs::run_cli(argc, argv); }

/*
 * rogue_dependency.c — a library a test plugin needs (rogue.c, fault
 * NEEDS): the loader must check its file and folders as it checks the
 * plugin's own (issue 32, D8).
 */
__attribute__((visibility("default"))) int rogue_dependency_answer(void);
int rogue_dependency_answer(void)
{
    return 42;
}

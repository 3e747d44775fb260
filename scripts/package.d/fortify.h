/* Forced into every compile of the package build (-include) by scripts/package.d/build where the
 * root's glibc (2.40 and later: Debian 13) declares clang-only FORTIFY overloads. There, Swift's
 * clang importer must not see _FORTIFY_SOURCE (each overloaded function would be imported twice:
 * "ambiguous use of 'realpath'"), while the C targets should. The importer defines __swift__. */
#if !defined __swift__ && defined PASSPORT_FORTIFY_LEVEL && !defined _FORTIFY_SOURCE
#define _FORTIFY_SOURCE PASSPORT_FORTIFY_LEVEL
#endif

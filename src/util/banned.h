/*
 * banned.h - libc calls that must not be used in airspace.
 *
 * Included last by every .c file of the project (through util/common.h), so a
 * use of one of these is a compile error. Use snprintf, xstrdup, strtol with
 * range checks, and the _r time functions instead.
 */
#ifndef AIRSPACE_UTIL_BANNED_H
#define AIRSPACE_UTIL_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_airspace

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef gets
#define gets(x) BANNED(gets)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)
#undef ctime
#define ctime(x) BANNED(ctime)
#undef asctime
#define asctime(x) BANNED(asctime)
#undef system
#define system(x) BANNED(system)

#endif

/*
 * remote_url.h - a git remote's URL as the name of the airspace its clones
 * share on a team store (docs/team.md, "Which clones form one airspace").
 */
#ifndef AIRSPACE_UTIL_REMOTE_URL_H
#define AIRSPACE_UTIL_REMOTE_URL_H

/*
 * url as host/path: the scheme, the user, the port, a URL's query and
 * fragment, ".git" and a trailing '/' dropped, the host in lower case (an
 * IPv6 host keeps its brackets), so https and ssh clones of one repository
 * agree (https://github.com/o/r.git and git@github.com:o/r are both
 * github.com/o/r); a local path or file:// URL stays a path. A new string.
 */
char *remote_url_airspace(const char *url);

#endif

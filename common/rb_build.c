/* This build's identity (rb_build.h). */
#include "rb_build.h"

#include "rb_build_id.h" /* generated at each build: RB_BUILD_ID */

const char *rb_build_id(void)
{
    return RB_BUILD_ID;
}

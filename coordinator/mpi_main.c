#include "rb_mpi.h"

int main(int argc, char **argv)
{
    return rb_mpi_main(argc, argv);
}

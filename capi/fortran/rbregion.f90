! rbregion: reprobench's region recorder for Fortran programs, over the C
! API of capi/rbregion.h (ISO_C_BINDING). Compile this file with the MPI
! library's Fortran wrapper (mpif90) next to the program, and link the
! program with that library's librbregion.a (capi/Makefile):
!
!   call MPI_Init(ierr)
!   if (rbr_start(MPI_COMM_WORLD, "out") /= 0) then ... rbr_error_message()
!   call rbr_begin("compute") ... call rbr_end("compute")
!   ierr = rbr_stop()
!   call MPI_Finalize(ierr)
!
! The communicator is a Fortran INTEGER handle (use mpi; with mpi_f08 pass
! comm%MPI_VAL). rbr_begin and rbr_end pass the name's address and length
! to C (no copy); the name is checked when first seen, as in C.
module rbregion
   use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int64_t
   implicit none
   private
   public :: rbr_start, rbr_start_disabled, rbr_stop, rbr_begin, rbr_end, rbr_iter, rbr_error_message

   interface
      function rbrf_start(comm, dir, n) bind(C, name="rbrf_start") result(rc)
         import :: c_char, c_int
         integer(c_int), value :: comm
         character(kind=c_char), intent(in) :: dir(*)
         integer(c_int), value :: n
         integer(c_int) :: rc
      end function rbrf_start
      function rbrf_stop() bind(C, name="rbrf_stop") result(rc)
         import :: c_int
         integer(c_int) :: rc
      end function rbrf_stop
      subroutine rbrf_begin(name, n) bind(C, name="rbrf_begin")
         import :: c_char, c_int
         character(kind=c_char), intent(in) :: name(*)
         integer(c_int), value :: n
      end subroutine rbrf_begin
      subroutine rbrf_end(name, n) bind(C, name="rbrf_end")
         import :: c_char, c_int
         character(kind=c_char), intent(in) :: name(*)
         integer(c_int), value :: n
      end subroutine rbrf_end
      subroutine rbrf_iter(iter) bind(C, name="rbrf_iter")
         import :: c_int64_t
         integer(c_int64_t), value :: iter
      end subroutine rbrf_iter
      function rbrf_error(buf, n) bind(C, name="rbrf_error") result(len)
         import :: c_char, c_int
         character(kind=c_char), intent(out) :: buf(*)
         integer(c_int), value :: n
         integer(c_int) :: len
      end function rbrf_error
   end interface

contains

   !> Starts recording on comm into directory dir (collective, after
   !> MPI_Init); returns 0, or nonzero with rbr_error_message() on every rank.
   integer function rbr_start(comm, dir)
      integer, intent(in) :: comm
      character(len=*), intent(in) :: dir
      rbr_start = int(rbrf_start(int(comm, c_int), dir, int(len(dir), c_int)))
   end function rbr_start

   !> The disabled recorder: records, writes and communicates nothing.
   integer function rbr_start_disabled(comm)
      integer, intent(in) :: comm
      rbr_start_disabled = int(rbrf_start(int(comm, c_int), " ", -1_c_int))
   end function rbr_start_disabled

   !> Ends the recording and writes the files on rank 0 (collective, before
   !> MPI_Finalize); returns 0 or nonzero (rbr_error_message()).
   integer function rbr_stop()
      rbr_stop = int(rbrf_stop())
   end function rbr_stop

   !> Opens region name.
   subroutine rbr_begin(name)
      character(len=*), intent(in) :: name
      call rbrf_begin(name, int(len(name), c_int))
   end subroutine rbr_begin

   !> Closes the innermost open region; name should be its name.
   subroutine rbr_end(name)
      character(len=*), intent(in) :: name
      call rbrf_end(name, int(len(name), c_int))
   end subroutine rbr_end

   !> Sets the iteration stamped on the regions begun from now on.
   subroutine rbr_iter(iter)
      integer, intent(in) :: iter
      call rbrf_iter(int(iter, c_int64_t))
   end subroutine rbr_iter

   !> The message of the last nonzero code.
   function rbr_error_message() result(msg)
      character(len=512) :: msg
      integer(c_int) :: n
      n = rbrf_error(msg, int(len(msg), c_int))
   end function rbr_error_message
end module rbregion

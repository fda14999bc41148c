! stencil: a 2-D Jacobi solver on a grid of rows split across the ranks
! (1-D decomposition), with three regions recorded by reprobench's Fortran
! module: compute (the sweep), halo (the exchange of boundary rows with
! MPI_Sendrecv) and residual (the MPI_Allreduce of the residual).
!
!   make MPI=openmpi
!   mpirun -np 2 ./stencil-openmpi 256 500 /tmp/fst
!   reprobench analyze /tmp/fst/stencil-openmpi-mpirun000.csv
!
! Arguments (optional, in order): columns and rows per rank (256),
! iterations (500), output directory ("out").
program stencil
   use mpi
   use rbregion
   implicit none
   integer :: n = 256, iters = 500, ierr, rank, nranks, up, down, it, i, j
   character(len=256) :: arg, out = "out"
   double precision, allocatable :: u(:, :), v(:, :)
   double precision :: local, res

   if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      read (arg, *) n
   end if
   if (command_argument_count() >= 2) then
      call get_command_argument(2, arg)
      read (arg, *) iters
   end if
   if (command_argument_count() >= 3) call get_command_argument(3, out)
   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
   if (rbr_start(MPI_COMM_WORLD, trim(out)) /= 0) then
      write (0, *) "stencil: ", trim(rbr_error_message())
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
   end if
   ! Column-major: column j is one row of the grid; columns 0 and n+1 are
   ! the ghost rows exchanged with the ranks above and below.
   allocate (u(0:n + 1, 0:n + 1), v(0:n + 1, 0:n + 1))
   u = rank
   v = rank
   up = merge(rank - 1, MPI_PROC_NULL, rank > 0)
   down = merge(rank + 1, MPI_PROC_NULL, rank < nranks - 1)
   do it = 0, iters - 1
      call rbr_iter(it)
      call rbr_begin("halo")
      call MPI_Sendrecv(u(:, 1), n + 2, MPI_DOUBLE_PRECISION, up, 0, u(:, n + 1), n + 2, &
         MPI_DOUBLE_PRECISION, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Sendrecv(u(:, n), n + 2, MPI_DOUBLE_PRECISION, down, 1, u(:, 0), n + 2, &
         MPI_DOUBLE_PRECISION, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call rbr_end("halo")
      call rbr_begin("compute")
      local = 0
      do j = 1, n
         do i = 1, n
            v(i, j) = 0.25d0*(u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
            local = local + (v(i, j) - u(i, j))**2
         end do
      end do
      u(1:n, 1:n) = v(1:n, 1:n)
      call rbr_end("compute")
      call rbr_begin("residual")
      call MPI_Allreduce(local, res, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      call rbr_end("residual")
   end do
   if (rank == 0) print '(a, i0, a, es12.5)', "residual after ", iters, " iterations: ", sqrt(res)
   if (rbr_stop() /= 0) then
      write (0, *) "stencil: ", trim(rbr_error_message())
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
   end if
   call MPI_Finalize(ierr)
end program stencil

/* bcryptprimitives.dll for wine 8, which lacks it: the Go runtime (1.22
 * and later) loads ProcessPrng from it at start-up, from system32 only.
 * This one fills the buffer with advapi32's RtlGenRandom (exported as
 * SystemFunction036), in pieces that fit its ULONG length. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
    const SIZE_T piece = 1u << 30;
    for (SIZE_T done = 0; done < size; done += piece) {
        SIZE_T left = size - done;
        if (!SystemFunction036(data + done, (ULONG)(left < piece ? left : piece)))
            return FALSE;
    }
    return TRUE;
}

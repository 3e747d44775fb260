/* Types only: see include/uniffi_abi.h. */
